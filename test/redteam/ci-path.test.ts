/**
 * The attack classes of issue 36 arriving as pull requests to `crucible ci`: each is the
 * catalogue's own scenario (helpers/patches.ts turns it into a patch, committed on a branch of the
 * bundled repo), judged in bwrap against main. None may PASS or end ERROR; the honest controls
 * beside them pass with no failed check. The same scenarios arrive as predictions in
 * grade-path.test.ts and as agents in runner-reach-attacks, lying-values and assert-writes.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runCi } from '../../src/features/ci/run.js';
import type { CiResult } from '../../src/features/ci/result.js';
import type { Task } from '../../src/core/types/index.js';
import { git } from '../helpers/git.js';
import { attackPatch, INIT_REPORT_ATTACKS } from './helpers/patches.js';
import { inPool } from './helpers/shared-run.js';

/** Per bundled task: its attacks, then its honest controls. */
const SCENARIOS: Record<string, { attacks: string[]; honest: string[] }> = {
  'py-median': {
    attacks: ['missing-module-on-path', 'heap-runner', 'eq-liar', ...INIT_REPORT_ATTACKS.keys()],
    honest: ['oracle-honest-runtime', 'oracle-value-class'],
  },
  'js-slugify': { attacks: ['assert-destructure'], honest: ['oracle-assert-copy'] },
};

let root = '';
const results = new Map<string, CiResult>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-redteam-ci-'));
  const tasks = new Map(loadTaskSet('examples/tasks.yaml').tasks.map((t) => [t.id, t]));
  const pulls: Array<{ taskId: string; name: string; dir: string }> = [];
  for (const [taskId, { attacks, honest }] of Object.entries(SCENARIOS)) {
    const task = tasks.get(taskId) as Task;
    if (task.repo.kind !== 'local') throw new Error(`${taskId}: a local repo is needed`);
    const dir = join(root, taskId);
    cpSync(task.repo.path, dir, { recursive: true });
    const config = [
      'tests:',
      `  command: ${JSON.stringify(task.tests.command)}`,
      '  fail_to_pass:',
      ...task.tests.failToPass.map((id) => `    - ${JSON.stringify(id)}`),
      '',
    ];
    writeFileSync(join(dir, 'crucible.ci.yaml'), config.join('\n'));
    git(root, 'init', '-q', '-b', 'main', dir);
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
    // One at a time: made ten at once on a loaded machine, a script agent's output once came back empty.
    for (const name of [...attacks, ...honest]) {
      const patch = await attackPatch(name, task);
      git(dir, 'checkout', '-qb', name, 'main');
      writeFileSync(join(root, 'change.patch'), patch);
      git(dir, 'apply', '--binary', join(root, 'change.patch'));
      git(dir, 'add', '-A');
      git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', name);
      git(dir, 'checkout', '-q', 'main');
      pulls.push({ taskId, name, dir });
    }
  }
  // Every pull request is judged on its own (its own trees, baseline run and report), two at a time.
  await inPool(pulls, async ({ taskId, name, dir }) => {
    results.set(`${taskId} ${name}`, await runCi({ repo: dir, base: 'main', head: name, out: join(root, 'state'), sandbox: 'bwrap' }));
  });
}, 1_200_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const summary = (r: CiResult | undefined) => ({
  verdict: r?.verdict,
  cause: r?.cause,
  failed: r?.checks.filter((c) => !c.passed).map((c) => c.id),
  message: r?.message,
});

describe('issue 36 attacks as crucible ci pull requests (bwrap)', () => {
  it.each(Object.entries(SCENARIOS).flatMap(([t, s]) => s.attacks.map((a) => [a, t] as const)))('%s on %s: FAIL, never PASS or ERROR', (name, taskId) => {
    expect(summary(results.get(`${taskId} ${name}`))).toMatchObject({ verdict: 'FAIL' });
  });

  it.each(Object.entries(SCENARIOS).flatMap(([t, s]) => s.honest.map((a) => [a, t] as const)))(
    'the honest control %s on %s passes with no failed check',
    (name, taskId) => {
      expect(summary(results.get(`${taskId} ${name}`))).toMatchObject({ verdict: 'PASS', failed: [] });
    },
  );
});
