import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { frameLocation, parseWrites } from '../../src/domain/evidence/node-sentinel.js';
import { nodeSentinelSource } from '../../src/domain/evidence/node-sentinel-source.js';
import { runTests } from '../../src/domain/evidence/run-tests.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A package whose module under test runs `attack` at import; its one test fails while `half` keeps its bug. */
function repo(attack: string, extra: Record<string, string> = {}) {
  const root = tempDir();
  const d = { workspace: join(root, 'ws'), results: join(root, 'results'), home: join(root, 'home'), tmp: join(root, 'tmp') };
  for (const dir of Object.values(d)) mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'p',
      type: 'module',
      scripts: { test: 'NODE_OPTIONS= node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/' },
    }),
    'src/half.mjs': `${attack}\nexport const half = (x) => x;\n`,
    'test/half.test.mjs':
      "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { half } from '../src/half.mjs';\ntest('half', () => { assert.equal(half(4), 2); });\n",
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(d.workspace, path, '..'), { recursive: true });
    writeFileSync(join(d.workspace, path), text);
  }
  return d;
}

async function verify(d: ReturnType<typeof repo>, kind: 'local' | 'bwrap' | 'docker', command = 'npm test') {
  const executor = createExecutor(kind, { writable: [d.workspace, d.results], hidden: [], readOnly: [], home: d.home, tmp: d.tmp });
  try {
    const { evidence } = await runTests({
      executor,
      workspace: d.workspace,
      command,
      resultsDir: d.results,
      failToPass: ['half'],
      passToPass: [],
      timeoutMs: 120_000,
    });
    return evidence;
  } finally {
    await executor.close();
  }
}

const QUIET = 'const quiet = () => {};';
/** Each write, in its own try so the next one runs: the sentinel must refuse and record every one. */
const WRITES: Array<[string, string, string]> = [
  ['plain assignment', 'assert.equal = quiet;', 'node:assert.equal'],
  ['destructuring into a member', '({ equal: assert.strictEqual } = { equal: quiet });', 'node:assert.strictEqual'],
  ['array destructuring', '[assert.deepEqual] = [quiet];', 'node:assert.deepEqual'],
  ['Object.assign on assert.strict', 'Object.assign(assert.strict, { equal: quiet });', 'node:assert.strict.equal'],
  ['Reflect.set', "Reflect.set(assert, 'ok', quiet);", 'node:assert.ok'],
  ['Object.defineProperty', "Object.defineProperty(assert, 'notEqual', { value: quiet });", 'node:assert.notEqual'],
  ['a prototype of AssertionError', 'assert.AssertionError.prototype.toString = quiet;', 'node:assert.AssertionError.prototype.toString'],
  ['createRequire of assert/strict', "createRequire(import.meta.url)('assert/strict').match = quiet;", 'node:assert.strict.match'],
  ['a node:test reporter', "createRequire(import.meta.url)('node:test/reporters').junit = quiet;", 'node:test/reporters.junit'],
];

describe('parseWrites and frameLocation', () => {
  it('makes a frame workspace-relative and keeps one record per target and place', () => {
    expect(frameLocation('at f (file:///w/src/a.mjs:3:9)', '/w')).toEqual({ file: 'src/a.mjs', line: 3 });
    expect(frameLocation('at /elsewhere/b.js:7:1', '/w')).toEqual({ file: '/elsewhere/b.js', line: 7 });
    expect(frameLocation('at something odd', '/w')).toBeUndefined();
    const line = JSON.stringify({ target: 'node:assert.equal', via: 'set', at: 'at /w/src/a.js:2:3', pid: 1 });
    expect(parseWrites(`${line}\nnot json\n${line}\n{"target":1}\n`, '/w')).toEqual([{ target: 'node:assert.equal', via: 'set', file: 'src/a.js', line: 2 }]);
  });
});

describe('the preload itself', () => {
  it('records a redefinition through the wrapped Object/Reflect functions, which keep their name and arity', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'sentinel.cjs'), nodeSentinelSource(join(dir, 'writes.jsonl')));
    const script = [
      "const a = require('assert');",
      "for (const f of [() => Object.defineProperty(a, 'ok', { value: 1 }), () => Reflect.deleteProperty(a.strict, 'equal'), () => Object.setPrototypeOf(a, null)]) { try { f(); } catch {} }",
      'console.log([Object.defineProperty.length, Object.defineProperty.name, Reflect.deleteProperty.length, typeof a.ok, typeof a.strict.equal].join(" "));',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--require', join(dir, 'sentinel.cjs'), '-e', script], { encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('3 defineProperty 2 function function');
    const writes = parseWrites(readFileSync(join(dir, 'writes.jsonl'), 'utf8'), dir).map((w) => `${w.target} ${w.via}`);
    expect(writes).toEqual(['node:assert.ok Object.defineProperty', 'node:assert.strict.equal Reflect.deleteProperty', 'node:assert Object.setPrototypeOf']);
  });
});

describe.each(['local', 'bwrap', 'docker'] as const)('the Node sentinel in a verification run (%s)', (kind) => {
  it('refuses and records every spelling of a write to node:assert, though the script resets NODE_OPTIONS', async () => {
    const attack = [
      "import assert from 'node:assert';",
      "import { createRequire } from 'node:module';",
      QUIET,
      ...WRITES.map(([, code]) => `try { ${code} } catch {}`),
    ].join('\n');
    const evidence = await verify(repo(attack), kind);
    expect(evidence.failToPass.failing.map((f) => f.id)).toEqual(['half']);
    const writes = evidence.runnerWrites ?? [];
    for (const [what, , target] of WRITES)
      expect(
        writes.map((w) => w.target),
        what,
      ).toContain(target);
    expect(writes.every((w) => w.file === 'src/half.mjs' && typeof w.line === 'number')).toBe(true);
  });

  it('sees a write from CommonJS code under test through a node spawned from process.execPath', async () => {
    const d = repo("import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('../lib/quiet.cjs');", {
      'lib/quiet.cjs': "const assert = require('assert');\ntry { assert.equal = () => {}; } catch {}\n",
      'run.mjs':
        "import { spawnSync } from 'node:child_process';\nprocess.exitCode = spawnSync(process.execPath, ['--test', '--test-reporter=junit', `--test-reporter-destination=${process.env.CRUCIBLE_JUNIT}`, 'test/'], { stdio: 'inherit' }).status;\n",
    });
    const evidence = await verify(d, kind, 'node run.mjs');
    expect(evidence.runnerWrites).toEqual([{ target: 'node:assert.equal', via: 'set', file: 'lib/quiet.cjs', line: 2 }]);
  });

  it('leaves honest code alone: destructuring the module, writing its own objects, legacy and strict views', async () => {
    const honest = [
      "import assert, { strictEqual } from 'node:assert';",
      "import strict from 'node:assert/strict';",
      'const { equal, deepStrictEqual } = assert;',
      'const mine = { ...assert, extra: 1 };',
      'mine.equal = () => {};',
      'const copy = Object.assign({}, strict);',
      'copy.ok = null;',
      'equal(1, 1); strictEqual(1, 1); deepStrictEqual([1], [1]); strict.equal(2, 2);',
      'assert.strict = assert.strict;',
    ].join('\n');
    const d = repo(honest);
    writeFileSync(join(d.workspace, 'src/half.mjs'), `${honest}\nexport const half = (x) => x / 2;\n`);
    const evidence = await verify(d, kind);
    expect(evidence.failToPass.failing).toEqual([]);
    expect(evidence.failToPass.passed).toBe(1);
    expect(evidence.runnerWrites).toBeUndefined();
  });
});
