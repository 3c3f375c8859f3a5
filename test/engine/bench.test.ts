import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchPaths, openBench, SetupCommandError, type BenchSpec } from '../../src/engine/bench.js';
import { resolveCiSettings } from '../../src/features/ci/index.js';
import { judge } from '../../src/domain/grading/index.js';
import { fakeExecutors, junitTests, type FakeExecutors } from '../helpers/fake-executor.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function specOf(config: string[]): BenchSpec {
  const settings = resolveCiSettings({ name: 'crucible.ci.yaml', text: [...config, ''].join('\n') }, {});
  return { id: 'bench', tests: settings.tests, policy: settings.policy, setup: settings.setup, limits: settings.limits };
}

/** A bench over files holding `src/value.txt`, in a fresh directory, commands answered by `fake`. */
function open(spec: BenchSpec, fake: FakeExecutors) {
  const dir = tempDir();
  const paths = benchPaths(join(dir, 'bench'), { agent: false });
  const reports = join(dir, 'reports');
  mkdirSync(reports);
  const names = { baseline: 'base.xml', baselineHeldOut: 'base-held-out.xml', tests: 'head.xml', heldOut: 'held-out.xml', patch: 'diff.patch' };
  const fill = async (workspace: string): Promise<void> => {
    mkdirSync(join(workspace, 'src'), { recursive: true });
    writeFileSync(join(workspace, 'src', 'value.txt'), 'broken\n');
  };
  const layout = ({ alsoWritable }: { alsoWritable: string[] }) => ({
    writable: [paths.workspace, ...alsoWritable],
    hidden: [],
    readOnly: [],
    home: join(paths.attemptDir, 'home'),
    tmp: join(paths.attemptDir, 'tmp'),
  });
  return openBench(spec, { kind: 'files', fill }, { kind: 'bwrap', executorFactory: fake.factory, layout }, { paths, reports: { dir: reports, names } });
}

describe('the bench', () => {
  it('runs setup once with the network, commits the baseline, and runs the baseline tests once however often they are asked for', async () => {
    const fake = fakeExecutors({
      'install-deps': (request) => writeFileSync(join(request.cwd, 'installed.txt'), 'deps\n'),
      'run-tests': junitTests((value) => ({ fixed: value === 'fixed', stable: true }), 'installed.txt'),
    });
    const bench = await open(specOf(['tests:', '  command: run-tests', '  fail_to_pass: ["spec::fixed"]', 'setup: [install-deps]']), fake);
    const first = await bench.baselineRuns();
    const again = await bench.baselineRuns();

    expect(again).toBe(first);
    expect(fake.calls.map((c) => [c.command, c.request.network])).toEqual([
      ['install-deps', 'host'],
      ['run-tests', 'none'],
    ]);
    expect(bench.baseline.commit).toMatch(/^[0-9a-f]{40}$/);
    // Setup's output is in the copy the tests ran in; the fail-to-pass test fails at the baseline.
    expect(first.run.evidence.failToPass.failing.map((f) => f.id)).toEqual(['spec::fixed']);
    expect(bench.knownBaseline).toBe(first);
  });

  it('asks the caller about the baseline run whether or not the spec has held-out tests (the preflight reads defects off it)', async () => {
    const fake = fakeExecutors({ 'run-tests': junitTests((value) => ({ fixed: value === 'fixed' })) });
    const bench = await open(specOf(['tests:', '  command: run-tests', '  fail_to_pass: ["spec::fixed"]']), fake);
    const seen: string[][] = [];
    await bench.baselineRuns((run) => {
      seen.push(run.evidence.failToPass.failing.map((f) => f.id));
      return false;
    });

    expect(seen).toEqual([['spec::fixed']]);
  });

  it('a test command that never reports, with no baseline taken yet, runs the baseline then: the outcome is never_ran (ERROR), not a FAIL', async () => {
    const fake = fakeExecutors({ silent: () => ({ exitCode: 1, stdout: 'running no tests' }) });
    const bench = await open(specOf(['tests:', '  command: silent', '  fail_to_pass: ["spec::fixed"]']), fake);
    const evaluated = await bench.evaluate({
      tree: bench.baseline.tree,
      commands: [],
      writeRoots: { workspace: bench.paths.workspace },
      sandboxEnforcesFs: true,
    });

    expect(fake.calls.map((c) => c.command)).toEqual(['silent', 'silent']);
    expect(evaluated.outcome.kind).toBe('never_ran');
    expect(evaluated.baseline?.run.evidence.invalidReason).toBeDefined();
    expect(judge(evaluated.outcome)).toMatchObject({ verdict: 'ERROR', cause: 'harness_error' });
  });

  it('a setup command that fails stops the bench with the command and its output kept beside', async () => {
    const fake = fakeExecutors({ 'install-deps': () => ({ exitCode: 3, stderr: 'E: no such package' }) });
    const opened = open(specOf(['tests:', '  command: run-tests', '  fail_to_pass: ["spec::fixed"]', 'setup: [install-deps]']), fake);
    const error = await opened.then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(SetupCommandError);
    const failure = error as SetupCommandError;
    expect(failure.message).toContain('install-deps');
    expect(existsSync(failure.file)).toBe(true);
    expect(fake.calls.map((c) => c.command)).toEqual(['install-deps']);
  });
});
