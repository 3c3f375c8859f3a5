import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { dependencyKey, withDependencyCache } from '../../src/engine/dependency-cache.js';
import type { Task } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { writeFiles } from '../helpers/git-project.js';
import { bwrapAttempt, shellAgent } from '../helpers/shell-attempt.js';

const tempDir = useTempDirs();
const SETUP = 'npm ci --no-audit --no-fund --offline';

const write = writeFiles;

let tarball: Buffer | undefined;

/** A tarball npm installs offline (`file:vendor/dep-1.0.0.tgz`), the same bytes in every repo, and the lockfile that pins it. */
function vendored(repo: string): void {
  if (tarball === undefined) {
    const pack = tempDir();
    write(pack, {
      'package/package.json': '{ "name": "dep", "version": "1.0.0", "main": "index.js" }\n',
      'package/index.js': 'exports.equal = (a, b) => a === b;\n',
    });
    execFileSync('tar', ['czf', join(pack, 'dep.tgz'), '-C', pack, 'package']);
    tarball = readFileSync(join(pack, 'dep.tgz'));
  }
  mkdirSync(join(repo, 'vendor'), { recursive: true });
  writeFileSync(join(repo, 'vendor', 'dep-1.0.0.tgz'), tarball);
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const deps = { dep: 'file:vendor/dep-1.0.0.tgz' };
  write(repo, {
    'package.json': JSON.stringify({ name: 'calc', version: '1.0.0', dependencies: deps }),
    'package-lock.json': JSON.stringify({
      name: 'calc',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: 'calc', version: '1.0.0', dependencies: deps }, 'node_modules/dep': { version: '1.0.0', resolved: deps.dep, integrity } },
    }),
  });
}

/** A task on its own repository (`calc` differs per task) whose setup is `npm ci` of the vendored lockfile. */
function task(calc: string): Task {
  const dir = tempDir();
  write(dir, {
    'repo/src/calc.js': calc,
    'repo/test/calc.test.js':
      "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { equal } = require('dep');\nconst { add } = require('../src/calc.js');\ntest('add', () => assert.ok(equal(add(2, 2), 4)));\n",
    'tasks.yaml': [
      'tasks:',
      '  - id: calc',
      '    repo: { path: repo }',
      '    instruction: add() subtracts; fix it.',
      `    setup: [${JSON.stringify(SETUP)}]`,
      '    tests:',
      '      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/',
      '      fail_to_pass: [add]',
      '',
    ].join('\n'),
  });
  vendored(join(dir, 'repo'));
  return loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
}

const attempt = bwrapAttempt;

/** npm writes one debug log per run into its cache (`npm_config_cache`, the shared tool cache): how many times an install ran. */
const npmRuns = (stateDir: string): number => {
  const logs = join(stateDir, 'cache', 'tools', 'npm', '_logs');
  return existsSync(logs) ? readdirSync(logs).filter((f) => f.endsWith('.log')).length : 0;
};

describe('the per-lockfile dependency cache', () => {
  it("gives another task with the same lockfile node_modules without running the install; no agent's write reaches the cache or the next task", async () => {
    const stateDir = tempDir();
    const first = task('exports.add = (a, b) => a - b;\n');
    const second = task('exports.add = (a, b) => a - b; // another commit\n');
    const deps = join(stateDir, 'cache', 'deps');
    // The vandal writes through every path it has: the workspace's node_modules, and where the cache lives on the host.
    const seenByVandal: string[] = [];
    const vandal = shellAgent(
      [
        "printf 'exports.equal = () => true;\\n' > node_modules/dep/index.js",
        `for f in ${deps}/*/node_modules/dep/index.js; do printf 'exports.equal = () => true;\\n' > "$f"; done`,
        `ls ${deps} && echo SAW-CACHE`,
      ].join('; '),
      seenByVandal,
    );
    await attempt(first, vandal, stateDir);
    expect(seenByVandal[0]).not.toContain('SAW-CACHE');
    expect(npmRuns(stateDir)).toBe(1);
    const entries = readdirSync(deps).filter((name) => !name.startsWith('.') && !name.endsWith('.lock'));
    expect(entries).toHaveLength(1);
    const cached = join(deps, entries[0] as string, 'node_modules', 'dep', 'index.js');
    expect(readFileSync(cached, 'utf8')).toBe('exports.equal = (a, b) => a === b;\n');

    const seen: string[] = [];
    const fix = shellAgent("cat node_modules/dep/index.js; sed -i 's/a - b/a + b/' src/calc.js", seen);
    const result = await attempt(second, fix, stateDir);
    expect(npmRuns(stateDir)).toBe(1);
    expect(seen[0]).toContain('exports.equal = (a, b) => a === b;');
    expect(result.verdict).toBe('PASS');
    expect(readFileSync(cached, 'utf8')).toBe('exports.equal = (a, b) => a === b;\n');
  });
});

describe('dependencyKey', () => {
  const repo = (extra: Record<string, string> = {}): string => {
    const dir = tempDir();
    vendored(dir);
    write(dir, extra);
    return dir;
  };
  const key = (workspace: string, setup: string[] = [SETUP], sandbox = 'bwrap'): Promise<string | undefined> => dependencyKey({ workspace, setup, sandbox });

  it('is the same for the same lockfile and install, and differs when either or the sandbox does', async () => {
    const a = await key(repo({ 'src/a.js': 'one' }));
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(await key(repo({ 'src/a.js': 'two', 'README.md': 'x' }))).toBe(a);
    expect(await key(repo(), ['npm ci'])).not.toBe(a);
    expect(await key(repo(), [SETUP], 'docker')).not.toBe(a);
    expect(await key(repo({ '.npmrc': 'registry=http://127.0.0.1:1/\n' }))).not.toBe(a);
    const edited = repo();
    writeFileSync(join(edited, 'package-lock.json'), readFileSync(join(edited, 'package-lock.json'), 'utf8').replace('"requires":true', '"requires":false'));
    expect(await key(edited)).not.toBe(a);
  });

  it('is none where a cached node_modules could differ from what setup makes', async () => {
    expect(await key(repo(), ['npm ci', 'npm run build'])).toBeUndefined();
    expect(await key(repo(), ['npm install left-pad'])).toBeUndefined();
    expect(await key(repo(), ['npm ci && node gen.js'])).toBeUndefined();
    const noLock = repo();
    execFileSync('rm', [join(noLock, 'package-lock.json')]);
    expect(await key(noLock, ['npm install'])).toBeUndefined();
    expect(await key(repo({ 'package.json': JSON.stringify({ name: 'x', scripts: { postinstall: 'node gen.js' } }) }))).toBeUndefined();
  });
});

describe('withDependencyCache', () => {
  const input = (workspace: string, root: string) => ({ root, workspace, setup: [SETUP], sandbox: 'bwrap' });
  const workspace = (): string => {
    const dir = tempDir();
    vendored(dir);
    return dir;
  };

  it('stores node_modules alone, and not when setup made more, rewrote the lockfile or linked outside', async () => {
    const root = join(tempDir(), 'deps');
    const cases: Array<[string, (dir: string) => string[]]> = [
      ['more than node_modules', (dir) => (write(dir, { 'node_modules/dep/index.js': 'x', 'dist/a.js': 'y' }), ['dist', 'node_modules'])],
      ['lockfile rewritten', (dir) => (write(dir, { 'node_modules/dep/index.js': 'x', 'package-lock.json': '{}' }), ['node_modules'])],
      [
        'a link outside',
        (dir) => {
          write(dir, { 'node_modules/dep/index.js': 'x' });
          symlinkSync('../../src', join(dir, 'node_modules', 'src-link'));
          return ['node_modules'];
        },
      ],
    ];
    for (const [, build] of cases) {
      const dir = workspace();
      await withDependencyCache(input(dir, root), async () => build(dir));
      expect(existsSync(root) ? readdirSync(root).filter((f) => !f.endsWith('.lock')) : []).toEqual([]);
    }
    const dir = workspace();
    await withDependencyCache(input(dir, root), async () => {
      write(dir, { 'node_modules/dep/index.js': 'ok' });
      mkdirSync(join(dir, 'node_modules', '.bin'));
      symlinkSync('../dep/index.js', join(dir, 'node_modules', '.bin', 'dep'));
      return ['node_modules'];
    });
    const other = workspace();
    let built = false;
    const outputs = await withDependencyCache(input(other, root), async () => {
      built = true;
      return [];
    });
    expect(built).toBe(false);
    expect(outputs).toEqual(['node_modules']);
    expect(readFileSync(join(other, 'node_modules', '.bin', 'dep'), 'utf8')).toBe('ok');
    // A copy, never a link to the entry: a write in one workspace changes no other.
    writeFileSync(join(other, 'node_modules', 'dep', 'index.js'), 'changed');
    const third = workspace();
    await withDependencyCache(input(third, root), async () => []);
    expect(readFileSync(join(third, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe('ok');
  });
});
