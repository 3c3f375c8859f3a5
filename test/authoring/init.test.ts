import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { detectRunner } from '../../src/features/authoring/init-detect.js';
import { initRepo, INIT_PLACEHOLDER_ID } from '../../src/features/authoring/init.js';
import { validateCommand } from '../../src/cli/commands/validate.js';
import { captureIo } from '../helpers/cli.js';
import { resolveCiSettings } from '../../src/features/ci/config.js';
import { runTaskTests, suggestTestIds } from '../../src/engine/index.js';
import { loadRunInput } from '../../src/features/suite/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const F2P = 'slugify > strips leading and trailing punctuation';

/** examples/repos/js-slugify as a user's fresh clone: its own git repository, one commit. */
function slugifyClone(): string {
  const dir = join(tempDir(), 'js-slugify');
  cpSync('examples/repos/js-slugify', dir, { recursive: true });
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base'],
  ])
    execFileSync('git', args, { cwd: dir });
  return dir;
}

afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

describe('crucible init', () => {
  it(
    'writes a task set and a ci config for a fresh clone that tests --suggest and validate accept once one id is filled in',
    async () => {
      const repo = slugifyClone();
      // The fix, not committed: init offers it as the oracle.
      execFileSync('git', ['apply', join(process.cwd(), 'examples/oracles/js-slugify.patch')], { cwd: repo });
      const result = initRepo(repo);
      expect(result.runner.runner).toBe('node-test');
      expect(result.oracle).toBe(join(repo, 'crucible.oracle.patch'));
      const tasksFile = join(repo, 'crucible.tasks.yaml');
      const text = readFileSync(tasksFile, 'utf8');
      expect(text).toContain('--test-reporter-destination=\\"$CRUCIBLE_JUNIT\\"');
      expect(text).toContain(`fail_to_pass: [${JSON.stringify(INIT_PLACEHOLDER_ID)}]`);
      // crucible.ci.yaml parses with crucible ci's own schema.
      const ci = resolveCiSettings({ name: 'crucible.ci.yaml', text: readFileSync(join(repo, 'crucible.ci.yaml'), 'utf8') }, {});
      expect(ci.tests.command).toBe(result.runner.command);

      const stateDir = join(tempDir(), 'state');
      const [task] = loadRunInput(tasksFile).tasks;
      if (!task) throw new Error('no task written');
      const [baseline, oracle] = await runTaskTests(task, { stateDir, sandbox: 'bwrap', sides: ['baseline', 'oracle'] });
      expect(baseline?.evidence.invalidReason).toBeUndefined();
      expect(suggestTestIds(baseline?.tests ?? [], oracle?.tests ?? []).failToPass).toEqual([F2P]);

      writeFileSync(tasksFile, text.replace(INIT_PLACEHOLDER_ID, F2P));
      // Resolving is exit 0: any other code is raised as an ExitError.
      await validateCommand(tasksFile, { runs: '1', out: stateDir, sandbox: 'bwrap', json: true }, captureIo().io);
    },
    attemptBudget(4),
  );

  it(
    'in a fresh clone with no fix: the baseline suggests the id, and validate calls the task unproven (exit 0; 1 with --require-oracle)',
    async () => {
      const repo = slugifyClone();
      const result = initRepo(repo);
      expect(result.oracle).toBeUndefined();
      const tasksFile = join(repo, 'crucible.tasks.yaml');
      const stateDir = join(tempDir(), 'state');
      const [task] = loadRunInput(tasksFile).tasks;
      if (!task) throw new Error('no task written');
      const [baseline] = await runTaskTests(task, { stateDir, sandbox: 'bwrap', sides: ['baseline'] });
      expect(suggestTestIds(baseline?.tests ?? [])).toMatchObject({ failToPass: [F2P], baselineOnly: true });

      writeFileSync(tasksFile, readFileSync(tasksFile, 'utf8').replace(INIT_PLACEHOLDER_ID, F2P));
      const io = captureIo();
      await validateCommand(tasksFile, { runs: '1', out: stateDir, sandbox: 'bwrap', json: true }, io.io);
      const report = JSON.parse(io.stdout()) as { valid: boolean; unproven: number; tasks: Array<{ status: string; nop: { failToPassFailing?: number } }> };
      expect(report).toMatchObject({ valid: true, unproven: 1, tasks: [{ status: 'unproven', nop: { failToPassFailing: 1 } }] });
      await expect(
        validateCommand(tasksFile, { runs: '1', out: stateDir, sandbox: 'bwrap', json: true, requireOracle: true }, captureIo().io),
      ).rejects.toMatchObject({
        exitCode: 1,
      });
    },
    attemptBudget(3),
  );

  it('refuses to overwrite, naming the file and the fix (exit 2), and needs a commit', () => {
    const repo = slugifyClone();
    initRepo(repo);
    expect(() => initRepo(repo)).toThrow(
      `${join(repo, 'crucible.tasks.yaml')}: already exists, and crucible init never overwrites (fix: edit it, or move it away and run crucible init again)`,
    );
    const bare = tempDir();
    expect(() => initRepo(bare)).toThrow(/not a git repository with a commit \(fix: git init/);
    // A repo may ship crucible.ci.yaml as a symlink to nowhere: writing through it would land outside the repo.
    const linked = slugifyClone();
    const target = join(tempDir(), 'outside.yaml');
    symlinkSync(target, join(linked, 'crucible.ci.yaml'));
    expect(() => initRepo(linked)).toThrow(`${join(linked, 'crucible.ci.yaml')}: already exists, and crucible init never overwrites`);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(linked, 'crucible.tasks.yaml'))).toBe(false);
  });

  it('leaves changed test files out of the oracle and says so', () => {
    const repo = slugifyClone();
    writeFileSync(join(repo, 'src/slugify.mjs'), `${readFileSync(join(repo, 'src/slugify.mjs'), 'utf8')}// fixed\n`);
    writeFileSync(join(repo, 'test/new.test.mjs'), '// a new test\n');
    const result = initRepo(repo);
    expect(result.testChanges).toEqual(['test/new.test.mjs']);
    const patch = readFileSync(join(repo, 'crucible.oracle.patch'), 'utf8');
    expect(patch).toContain('+// fixed');
    expect(patch).not.toContain('new.test.mjs');
    // The user's own index is untouched.
    expect(execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: repo, encoding: 'utf8' })).toBe('');
  });

  it('detects vitest, jest, pnpm, pytest, go test and cargo', () => {
    const repo = (files: Record<string, string>): string => {
      const dir = tempDir();
      for (const [name, text] of Object.entries(files)) {
        mkdirSync(join(dir, name, '..'), { recursive: true });
        writeFileSync(join(dir, name), text);
      }
      return dir;
    };
    const pkg = (test: string, deps: Record<string, string> = {}): string => JSON.stringify({ scripts: { test }, devDependencies: deps });
    expect(detectRunner(repo({ 'package.json': pkg('vitest', { vitest: '1' }), 'pnpm-lock.yaml': '' }))).toMatchObject({
      runner: 'vitest',
      command: 'pnpm exec vitest run --reporter=junit --outputFile="$CRUCIBLE_JUNIT"',
      setup: ['pnpm install --frozen-lockfile'],
    });
    expect(detectRunner(repo({ 'package.json': pkg('jest --ci', { jest: '1' }), 'yarn.lock': '' }))).toMatchObject({
      runner: 'jest',
      command: 'JEST_JUNIT_OUTPUT_FILE="$CRUCIBLE_JUNIT" yarn jest --ci --reporters=jest-junit',
      setup: ['yarn install --frozen-lockfile', 'yarn add --dev jest-junit'],
      note: expect.stringContaining('jest-junit') as string,
    });
    expect(detectRunner(repo({ 'package.json': pkg('mocha') }))).toMatchObject({ runner: 'mocha', command: 'npm test -- --reporter=tap', setup: [] });
    expect(detectRunner(repo({ 'tests/test_calc.py': '' }))).toMatchObject({
      runner: 'pytest',
      command: 'python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT"',
    });
    expect(detectRunner(repo({ 'go.mod': 'module x\n' }))).toMatchObject({ runner: 'go', format: 'go-json' });
    expect(detectRunner(repo({ 'Cargo.toml': '' }))).toMatchObject({ runner: 'cargo', format: 'cargo-json' });
    expect(detectRunner(repo({ 'README.md': '' }))).toBeUndefined();
    // A package.json that is JSON but not an object says nothing; the other runners are still looked for.
    expect(detectRunner(repo({ 'package.json': 'null', 'go.mod': 'module x\n' }))).toMatchObject({ runner: 'go' });
    expect(detectRunner(repo({ 'package.json': '[1]' }))).toBeUndefined();
    expect(existsSync(join(repo({}), 'crucible.tasks.yaml'))).toBe(false);
  });
});
