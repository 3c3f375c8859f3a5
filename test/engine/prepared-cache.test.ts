import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import type { AttemptEnv, PreparedNotice } from '../../src/engine/attempt.js';
import type { Task } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { bwrapAttempt, shellAgent } from '../helpers/shell-attempt.js';

const tempDir = useTempDirs();

const NODE_TEST = 'node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT"';

/**
 * A repo without any .gitignore whose test judges `add` through files only setup makes: a
 * `node_modules` package and a generated `lib-gen/` module (a name no dependency rule knows). The
 * setup appends a line to a file in the tool cache, outside the workspace, each time it runs.
 */
function fixture(dir: string, options: { setupTag?: string; calc?: string } = {}): { task: Task; counter: (stateDir: string) => number } {
  const generate = [
    'echo ran >> "$XDG_CACHE_HOME/setup-runs.log"',
    'mkdir -p node_modules/dep lib-gen',
    "printf 'export const equal = (a, b) => a === b;\\n' > node_modules/dep/index.mjs",
    "printf 'export const expected = 4;\\n' > lib-gen/check.mjs",
    // Some bulk, as an install has: nothing here may reach the baseline commit.
    'for i in $(seq 1 50); do echo "// $i" > node_modules/dep/f$i.js; done',
    `echo ${options.setupTag ?? 'v1'} > node_modules/.tag`,
    'sleep 0.3',
  ].join(' && ');
  const files: Record<string, string> = {
    'repo/src/calc.mjs': options.calc ?? 'export const add = (a, b) => a - b;\n',
    'repo/test/calc.test.mjs': [
      "import assert from 'node:assert/strict';",
      "import { test } from 'node:test';",
      "import { equal } from '../node_modules/dep/index.mjs';",
      "import { expected } from '../lib-gen/check.mjs';",
      "import { add } from '../src/calc.mjs';",
      "test('add', () => assert.ok(equal(add(2, 2), expected)));",
      '',
    ].join('\n'),
    'tasks.yaml': [
      'tasks:',
      '  - id: calc',
      '    repo: { path: repo }',
      '    instruction: add() subtracts; fix it.',
      `    setup: [${JSON.stringify(generate)}]`,
      '    tests:',
      `      command: ${JSON.stringify(`${NODE_TEST} test/`)}`,
      '      fail_to_pass: [add]',
      '',
    ].join('\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const task = loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
  const counter = (stateDir: string): number => {
    const log = join(stateDir, 'cache', 'tools', 'setup-runs.log');
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
  };
  return { task, counter };
}

const attempt = bwrapAttempt;

const fixAdd = shellAgent("sed -i 's/a - b/a + b/' src/calc.mjs");
const nop = shellAgent('true');
const collect = (into: PreparedNotice[]): Partial<AttemptEnv> => ({ onPrepared: (info) => into.push(info) });

function cacheEntries(stateDir: string): string[] {
  const root = join(stateDir, 'cache', 'prepared');
  return existsSync(root) ? readdirSync(root) : [];
}

describe('prepare once, attempt many: the prepared-tree cache', () => {
  it('runs setup once across attempts of a task, and again when the setup or the repo changes', async () => {
    const dir = tempDir();
    const stateDir = tempDir();
    const { task, counter } = fixture(dir);
    const notices: PreparedNotice[] = [];
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await attempt(task, fixAdd, stateDir, collect(notices)));
    expect(results.map((r) => r.verdict)).toEqual(['PASS', 'PASS', 'PASS']);
    expect(counter(stateDir)).toBe(1);
    expect(notices.map((x) => x.reused)).toEqual([false, true, true]);
    expect(cacheEntries(stateDir)).toEqual([notices[0]?.key]);

    const changedSetup = fixture(tempDir(), { setupTag: 'v2' }).task;
    expect((await attempt(changedSetup, fixAdd, stateDir, collect(notices))).verdict).toBe('PASS');
    expect(counter(stateDir)).toBe(2);

    const changedRepo = fixture(tempDir(), { calc: 'export const add = (a, b) => a - b; // edited\n' }).task;
    expect((await attempt(changedRepo, fixAdd, stateDir, collect(notices))).verdict).toBe('PASS');
    expect(counter(stateDir)).toBe(3);
    expect(notices.map((x) => x.reused)).toEqual([false, true, true, false, false]);
    expect(new Set(notices.map((x) => x.key)).size).toBe(3);
  });

  it('builds once when attempts of one task start together', async () => {
    const stateDir = tempDir();
    const { task, counter } = fixture(tempDir());
    const notices: PreparedNotice[] = [];
    const results = await Promise.all([0, 1, 2].map(() => attempt(task, fixAdd, stateDir, collect(notices))));
    expect(results.map((r) => r.verdict)).toEqual(['PASS', 'PASS', 'PASS']);
    expect(counter(stateDir)).toBe(1);
    expect(notices.filter((x) => !x.reused)).toHaveLength(1);
    expect(cacheEntries(stateDir)).toHaveLength(1);
  });

  it("gives every attempt its own copy: what one agent does to setup's output reaches neither the next attempt nor the cache", async () => {
    const stateDir = tempDir();
    const { task } = fixture(tempDir());
    const vandal = shellAgent(
      [
        "printf 'export const equal = () => true;\\n' > node_modules/dep/index.mjs",
        'rm -rf lib-gen',
        'ln -s /etc/passwd node_modules/dep/f1.js',
        'chmod -R a-w node_modules',
      ].join('; '),
    );
    const notices: PreparedNotice[] = [];
    await attempt(task, vandal, stateDir, collect(notices));
    const seen: string[] = [];
    const reader = shellAgent(
      'cat node_modules/dep/index.mjs lib-gen/check.mjs; test -L node_modules/dep/f1.js && echo LINK; test -w node_modules/dep && echo WRITABLE',
      seen,
    );
    await attempt(task, reader, stateDir, collect(notices));
    expect(notices.map((x) => x.reused)).toEqual([false, true]);
    expect(seen[0]).toContain('export const equal = (a, b) => a === b;');
    expect(seen[0]).toContain('export const expected = 4;');
    expect(seen[0]).not.toContain('LINK');
    expect(seen[0]).toContain('WRITABLE');
    const cached = join(stateDir, 'cache', 'prepared', notices[0]?.key ?? '', 'tree');
    expect(readFileSync(join(cached, 'node_modules', 'dep', 'index.mjs'), 'utf8')).toContain('a === b');
    expect(existsSync(join(cached, 'lib-gen', 'check.mjs'))).toBe(true);
  });

  it('does not cache a failed setup: every attempt runs it and reports its own failure', async () => {
    const dir = tempDir();
    const stateDir = tempDir();
    const { task, counter } = fixture(dir);
    const failing: Task = { ...task, setup: ['echo ran >> "$XDG_CACHE_HOME/setup-runs.log"; echo "npm error code E404" >&2; exit 1'] };
    const first = await attempt(failing, nop, stateDir);
    const second = await attempt(failing, nop, stateDir);
    for (const a of [first, second]) expect(a).toMatchObject({ verdict: 'ERROR', cause: 'harness_error', harnessError: { phase: 'prepare' } });
    expect(second.message).toContain('npm error code E404');
    expect(counter(stateDir)).toBe(2);
    expect(cacheEntries(stateDir)).toEqual([]);
  });

  it('does not share a tree that setup bound to its own path (a virtualenv shebang): each attempt runs setup', async () => {
    const stateDir = tempDir();
    const { task, counter } = fixture(tempDir());
    const bound: Task = { ...task, setup: [...task.setup, 'mkdir -p .venv/bin && printf "#!$PWD/.venv/bin/python\\n" > .venv/bin/tool'] };
    const notices: PreparedNotice[] = [];
    for (let i = 0; i < 2; i++) expect((await attempt(bound, fixAdd, stateDir, collect(notices))).verdict).toBe('PASS');
    expect(counter(stateDir)).toBe(2);
    expect(notices).toEqual([]);
    expect(cacheEntries(stateDir).filter((e) => !e.endsWith('.path-bound'))).toEqual([]);
  });

  it('with prepareCache off, runs setup in every attempt and caches nothing', async () => {
    const stateDir = tempDir();
    const { task, counter } = fixture(tempDir());
    const notices: PreparedNotice[] = [];
    for (let i = 0; i < 2; i++) expect((await attempt(task, fixAdd, stateDir, { ...collect(notices), prepareCache: false })).verdict).toBe('PASS');
    expect(counter(stateDir)).toBe(2);
    expect(notices).toEqual([]);
    expect(cacheEntries(stateDir)).toEqual([]);
  });
});

describe("setup's output is the environment, never the graded change", () => {
  for (const prepareCache of [true, false]) {
    it(`keeps it out of the baseline commit and the diff, without a .gitignore (prepare cache ${prepareCache ? 'on' : 'off'})`, async () => {
      const stateDir = tempDir();
      const { task } = fixture(tempDir());
      const agent = shellAgent("sed -i 's/a - b/a + b/' src/calc.mjs; echo '// touched' >> node_modules/dep/index.mjs; echo x > lib-gen/new.mjs");
      const a = await attempt(task, agent, stateDir, { prepareCache, keepWorkspace: true });
      expect(a.verdict).toBe('PASS');
      const attemptDir = join(stateDir, 'runs', 'r', 'attempts', a.attemptId);
      const committed = execFileSync('git', ['--git-dir', join(attemptDir, 'baseline.git'), 'ls-tree', '-r', '--name-only', 'HEAD'], { encoding: 'utf8' });
      expect(committed.split('\n').filter(Boolean).sort()).toEqual(['src/calc.mjs', 'test/calc.test.mjs']);
      expect(a.diff?.files.map((f) => f.path)).toEqual(['src/calc.mjs']);
      expect(readFileSync(join(attemptDir, 'diff.patch'), 'utf8')).not.toMatch(/node_modules|lib-gen/);
      // What the agent did to them is listed as not graded.
      expect(a.notGraded?.items.map((i) => i.path)).toEqual(expect.arrayContaining(['node_modules/dep/index.mjs', 'lib-gen/new.mjs']));
    });
  }

  const cheats: Record<string, string> = {
    'edits the setup output to pass':
      "printf 'export const expected = 0;\\n' > lib-gen/check.mjs; printf 'export const equal = () => true;\\n' > node_modules/dep/index.mjs",
    'un-ignores it with its own .gitignore and edits it':
      "printf '!/lib-gen\\n!/node_modules\\n!*\\n' > .gitignore; printf 'export const expected = 0;\\n' > lib-gen/check.mjs",
    'replaces it with a symlink to its own file':
      "mkdir -p fake && printf 'export const expected = 0;\\n' > fake/check.mjs && rm -rf lib-gen && ln -s fake lib-gen",
    'deletes it and adds a tracked file in its place':
      "rm -rf lib-gen && mkdir lib-gen && printf 'export const expected = 0;\\n' > lib-gen/check.mjs && printf '!*\\n' > lib-gen/.gitignore",
  };
  for (const [name, script] of Object.entries(cheats)) {
    it(`an agent that ${name} gains nothing: verification gets the pristine setup output`, async () => {
      const stateDir = tempDir();
      const { task } = fixture(tempDir());
      const notices: PreparedNotice[] = [];
      const a = await attempt(task, shellAgent(script), stateDir, collect(notices));
      expect(a.verdict).toBe('FAIL');
      expect(a.tests?.failToPass).toMatchObject({ total: 1, passed: 0 });
      expect(a.diff?.files.map((f) => f.path).filter((p) => /^(lib-gen|node_modules)(\/|$)/.test(p))).toEqual([]);
      // Nothing it did reached the cache: the next attempt, the honest fix, passes on it.
      expect((await attempt(task, fixAdd, stateDir, collect(notices))).verdict).toBe('PASS');
      expect(notices.map((x) => x.reused)).toEqual([false, true]);
    });
  }
});
