import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { gitProject } from '../helpers/git-project.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * `crucible init` on real packages as the registry gives them (issue 39): each unpacked into a git
 * repository with a bug committed and its fix left uncommitted. init must write a task set that
 * `crucible validate` accepts with no edit but the instruction. Registry tier (test/tiers.ts): it
 * reaches the npm registry, and says so plainly when it cannot, rather than skipping.
 */
const tempDir = useTempDirs();

/** Setup and the baseline and oracle runs for init; preflight, nop and the oracle 3 times for validate; setup installs, so twice. */
const ATTEMPTS = 2 * (2 + 1 + 1 + 3);

/** The package's published files, unpacked into `dir`. Throws, naming the registry, when npm cannot fetch it. */
function unpacked(spec: string, dir: string): string {
  const packs = tempDir();
  const packed = spawnSync('npm', ['pack', spec, '--pack-destination', packs, '--json'], { encoding: 'utf8' });
  if (packed.status !== 0)
    throw new Error(
      `the npm registry did not give ${spec} (this test needs it: run where registry.npmjs.org is reachable): ${packed.stderr.trim().split('\n').pop() ?? ''}`,
    );
  const file = (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]?.filename ?? '';
  execFileSync('mkdir', ['-p', dir]);
  execFileSync('tar', ['xzf', join(packs, file), '-C', dir, '--strip-components=1']);
  return dir;
}

/** Commits `buggy` in place of `fixed` in `file`, then puts the fix back uncommitted: init's oracle. */
function withBugCommitted(dir: string, file: string, fixed: string, buggy: string): void {
  const text = readFileSync(join(dir, file), 'utf8');
  if (!text.includes(fixed)) throw new Error(`${file} no longer has ${JSON.stringify(fixed)}: pick another line to break`);
  writeFileSync(join(dir, file), text.replace(fixed, buggy));
  gitProject(dir, {}, 'the package as published, with a bug');
  writeFileSync(join(dir, file), text);
}

async function initThenValidate(repo: string, instruction: string): Promise<{ tasks: string; validate: string }> {
  const state = join(tempDir(), 'state');
  const init = await runCli(['init', '--out', state, '--sandbox', 'bwrap'], { cwd: repo });
  expect(init.stderr).not.toMatch(/^error/m);
  expect(init.status).toBe(0);
  const file = join(repo, 'crucible.tasks.yaml');
  const written = readFileSync(file, 'utf8');
  // The one edit a user makes: the instruction.
  expect(written).toMatch(/^ {6}TODO: .*$/m);
  writeFileSync(file, written.replace(/^ {6}TODO: .*$/m, `      ${instruction}`));
  const validate = await runCli(['validate', 'crucible.tasks.yaml', '--out', state, '--sandbox', 'bwrap'], { cwd: repo });
  expect(validate.status).toBe(0);
  return { tasks: written, validate: validate.stdout };
}

const CLAMP_INSTRUCTION = 'clamp returns the lower bound for values above the range; it must return the upper bound.';

/** A mocha project with its bug committed and the fix uncommitted: mocha `version` from the registry, run by `script`. */
function clampWithMocha(repo: string, script: string, version: string): string {
  gitProject(repo, {
    'package.json': JSON.stringify({ name: 'clamp', version: '1.0.0', scripts: { test: script }, devDependencies: { mocha: version } }),
    'index.js': 'module.exports = (x, lo, hi) => (x < lo ? lo : x > hi ? lo : x);\n',
    'test/clamp.test.js': [
      "const assert = require('assert');",
      "const clamp = require('..');",
      "describe('clamp', () => {",
      "  it('keeps values inside', () => assert.strictEqual(clamp(5, 0, 10), 5));",
      "  it('lowers values above', () => assert.strictEqual(clamp(11, 0, 10), 10));",
      '});',
      '',
    ].join('\n'),
  });
  writeFileSync(join(repo, 'index.js'), 'module.exports = (x, lo, hi) => (x < lo ? lo : x > hi ? hi : x);\n');
  return repo;
}

describe('crucible init on packages from the npm registry', () => {
  it(
    'left-pad@1.3.0 (tape through `node test`): TAP confirmed, the failing tests filled in, valid',
    async () => {
      const repo = unpacked('left-pad@1.3.0', join(tempDir(), 'left-pad'));
      withBugCommitted(repo, 'index.js', "if (!ch && ch !== 0) ch = ' ';", "if (!ch) ch = ' ';");
      const { tasks, validate } = await initThenValidate(repo, 'leftPad pads with spaces when ch is the number 0; it must pad with zeros.');
      expect(tasks).toContain('      format: tap\n');
      expect(tasks).toContain('fail_to_pass: ["edge cases", "non spaces for ch"]');
      expect(validate).toMatch(/^valid +left-pad +fails 2\/2 +passes 3\/3/m);
    },
    attemptBudget(ATTEMPTS),
  );

  it(
    'minimist@1.2.8 (`npm run tests-only` through nyc and tape; lint and audit left out): valid',
    async () => {
      const repo = unpacked('minimist@1.2.8', join(tempDir(), 'minimist'));
      withBugCommitted(repo, 'index.js', 'if ((/^0x[0-9a-f]+$/i).test(x)) { return true; }', 'if ((/^0x[0-9]+$/i).test(x)) { return true; }');
      const { tasks, validate } = await initThenValidate(repo, 'Hexadecimal numbers such as 0xff stay strings; they must be parsed as numbers.');
      expect(tasks).toContain('command: "npm run tests-only"');
      expect(tasks).toContain('fail_to_pass: ["nums"]');
      expect(validate).toMatch(/^valid +minimist +fails 1\/1 +passes 3\/3/m);
    },
    attemptBudget(ATTEMPTS),
  );

  // mocha 1.x's `mocha` starts `_mocha` in a way Node 20 ignores (it prints nothing): init runs `_mocha` itself.
  it.each([
    { name: 'mocha 10', script: 'mocha', version: '^10.7.0', command: 'npm test -- --reporter=tap' },
    { name: 'mocha 1.x', script: 'mocha --reporter spec', version: '~1.21.5', command: 'npx _mocha --reporter tap' },
  ])(
    'a mocha project with $name from the registry: its tap reporter, valid',
    async ({ script, version, command }) => {
      const repo = clampWithMocha(join(tempDir(), 'clamp'), script, version);
      const { tasks, validate } = await initThenValidate(repo, CLAMP_INSTRUCTION);
      expect(tasks).toContain(`command: "${command}"`);
      expect(tasks).toContain('fail_to_pass: ["clamp lowers values above"]');
      expect(validate).toMatch(/^valid +clamp +fails 1\/1 +passes 3\/3/m);
    },
    attemptBudget(ATTEMPTS),
  );
});
