import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateCheckout, resolveCiSettings } from '../../src/features/ci/index.js';
import { openCheckout } from '../../src/features/ci/checkout.js';
import { fakeExecutors, junitTests } from '../helpers/fake-executor.js';
import { git } from '../helpers/git.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const CONFIG = ['tests:', '  command: run-tests', '  fail_to_pass: ["spec::fixed"]', 'setup: [install-deps]', ''].join('\n');

describe('crucible ci takes its executors from the factory it is given', () => {
  it('evaluates base → head in-process: setup once with network, the tests at base and at head, each in a fresh copy', async () => {
    const dir = join(tempDir(), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', dir);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'value.txt'), 'broken\n');
    writeFileSync(join(dir, 'crucible.ci.yaml'), CONFIG);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'base');
    const base = git(dir, 'rev-parse', 'HEAD').trim();
    writeFileSync(join(dir, 'src', 'value.txt'), 'fixed\n');
    git(dir, 'commit', '-qam', 'fix');
    const head = git(dir, 'rev-parse', 'HEAD').trim();

    const fake = fakeExecutors({
      'install-deps': (request) => writeFileSync(join(request.cwd, 'installed.txt'), 'deps\n'),
      'run-tests': junitTests((value) => ({ fixed: value === 'fixed', stable: true }), 'installed.txt'),
    });
    const evaluation = await evaluateCheckout({
      checkout: await openCheckout(dir),
      base: { ref: 'main~1', commit: base },
      head: { ref: 'main', commit: head },
      settings: resolveCiSettings({ name: 'crucible.ci.yaml', text: CONFIG }, {}),
      sandbox: 'bwrap',
      executorFactory: fake.factory,
      stateDir: join(tempDir(), 'state'),
      reportDir: join(tempDir(), 'report'),
      commands: [],
      baselineTests: true,
    });

    expect(evaluation.grade, evaluation.grade.message).toMatchObject({ verdict: 'PASS', cause: 'passed' });
    expect(fake.calls.map((c) => [c.command, c.request.network])).toEqual([
      ['install-deps', 'host'],
      ['run-tests', 'none'],
      ['run-tests', 'none'],
    ]);
    const [setup, atBase, atHead] = fake.calls;
    for (const run of [atBase, atHead]) {
      // Setup's output is part of every copy; what a test run left (debris.log, HOME's .debris) is in none.
      expect(run?.request.cwd).toBe(setup?.request.cwd);
      expect(run?.workspaceEntries).toEqual(['crucible.ci.yaml', 'installed.txt', 'src']);
      expect(run?.homeEntries).toEqual([]);
    }
    expect(evaluation.baselineTests?.failToPass.failing.map((f) => f.id)).toEqual(['spec::fixed']);
    expect(evaluation.tests.failToPass).toMatchObject({ passed: 1, total: 1 });
    // Setup's output is the environment, not the change; the checkout is read, never written.
    expect(evaluation.diff.files.map((f) => f.path)).toEqual(['src/value.txt']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(fake.closed).toBe(fake.made);
  });
});
