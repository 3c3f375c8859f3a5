/**
 * The red-team suite: every attack of the catalogue (src/domain/redteam/) on the
 * bundled example tasks it applies to, in the real bwrap sandbox, through runAttempt. Each must
 * end as the catalogue says (never ERROR; honest controls PASS with no failed check), and nothing
 * outside the attempts' own directories may change: the task set (oracle patches, held-out tests,
 * repo sources), another run's state and the trees the attempts share (each task's preflight) are
 * fingerprinted before and after. docs/redteam.md.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunAgent, ATTACKS, expectedFor, type Attack } from '../../src/domain/redteam/index.js';
import { STOLEN_FILE } from '../../src/domain/redteam/reading.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt, type AttemptEnv, type TaskBaselineRuns } from '../../src/engine/attempt.js';
import { preflightTasks } from '../../src/engine/preflight.js';
import { removeSharedTrees } from '../../src/engine/shared-baseline.js';
import { describeExpectation, meetsAttackExpectation, namedLimit } from '../../src/domain/grading/validity.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { filesLargerThan, snapshotTree, treeChanges } from '../helpers/tree-snapshot.js';

const MIB = 1024 ** 2;
/** Must never appear in any attempt's change: planted in the task set and in another run's state. */
const CANARY = 'CRUCIBLE-REDTEAM-CANARY-5f1d';
/** For working on one attack: CRUCIBLE_REDTEAM_ONLY=patch-assert,oracle npx vitest run test/redteam */
const ONLY = process.env.CRUCIBLE_REDTEAM_ONLY?.split(',').filter(Boolean);
/** Classes with a suite of their own, run in parallel with this one. */
const OWN_SUITE: ReadonlySet<string> = new Set(['runner-reach']);
/** The attacks this file runs: those with a suite of their own run in test/redteam/<suite>.test.ts. */
const HERE = ATTACKS.filter((a) => a.suite === undefined && !OWN_SUITE.has(a.class));
const TASK_IDS = ['js-slugify', 'py-median', 'ts-lru-recency', 'py-roman-subtractive', 'js-slugify-npm'] as const;

/**
 * Which bundled tasks each attack runs on (those it applies to, trimmed to keep the suite's time in
 * check): one task per language, the TypeScript task for attacks on compiled code and runner
 * wrappers, the held-out task for attacks that need held-out tests or whose effect reaches them,
 * resource attacks on one task, and the npm-run variant only where npm matters.
 */
function tasksFor(attack: Attack): string[] {
  const applies = (id: string): boolean => attack.appliesTo(tasks.get(id) as Task);
  if (attack.class === 'resources') return ['js-slugify'].filter(applies);
  const picked = ['js-slugify', 'py-median'].filter(applies);
  if (applies('ts-lru-recency') && ['honest', 'lying', 'runner-config', 'test-tampering'].includes(attack.class)) picked.push('ts-lru-recency');
  if (applies('py-roman-subtractive') && (!applies('py-median') || ['honest', 'lying', 'outside-diff', 'host-write', 'module-shadow'].includes(attack.class)))
    picked.push('py-roman-subtractive');
  if (applies('js-slugify-npm') && (!applies('js-slugify') || attack.name === 'oracle')) picked.push('js-slugify-npm');
  return picked;
}

interface Planned {
  attack: Attack;
  taskId: string;
  attemptId: string;
}

let root = '';
let runDir = '';
const results = new Map<string, AttemptResult>();
const tasks = new Map<string, Task>();
const plan: Planned[] = [];
let hostChanges: string[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-redteam-'));
  // The task set in a directory of its own (the symlink attacks aim at it), with canaries beside it.
  const taskSetDir = join(root, 'taskset');
  for (const part of ['tasks.yaml', 'repos', 'held-out', 'oracles']) cpSync(join('examples', part), join(taskSetDir, part), { recursive: true });
  writeFileSync(join(taskSetDir, 'CANARY.txt'), `${CANARY}\n`);
  const stateDir = join(root, 'state');
  const otherRun = join(stateDir, 'runs', 'other-run', 'attempts', 'other.attempt');
  mkdirSync(otherRun, { recursive: true });
  writeFileSync(join(otherRun, 'attempt.json'), JSON.stringify({ note: CANARY }));
  runDir = join(stateDir, 'runs', 'redteam');

  const loaded = new Map(loadTaskSet(join(taskSetDir, 'tasks.yaml')).tasks.map((t) => [t.id, t]));
  const small = (task: Task): Task => ({
    ...task,
    limits: {
      ...task.limits,
      agentTimeoutMs: 120_000,
      testTimeoutMs: 90_000,
      // Small enough that the resource attacks end fast, large enough for npm, tsc and pytest.
      resources: {
        pids: 256,
        memoryBytes: 1024 * MIB,
        cpuSeconds: 120,
        fileSizeBytes: 64 * MIB,
        workspaceBytes: 512 * MIB,
        workspaceFiles: 20_000,
        changeFiles: 2_000,
        changeBytes: 8 * MIB,
      },
    },
    policy: { ...task.policy, secrets: { ...task.policy.secrets, literals: [...task.policy.secrets.literals, CANARY] } },
  });
  tasks.clear();
  for (const id of TASK_IDS.slice(0, 4)) tasks.set(id, small(loaded.get(id) as Task));
  // js-slugify run through npm, so that .npmrc matters.
  const slugify = tasks.get('js-slugify') as Task;
  tasks.set('js-slugify-npm', { ...slugify, id: 'js-slugify-npm', tests: { ...slugify.tests, command: `npm exec --offline -- ${slugify.tests.command}` } });

  for (const attack of HERE.filter((a) => !ONLY || ONLY.includes(a.name)))
    for (const taskId of tasksFor(attack)) plan.push({ attack, taskId, attemptId: `${taskId}.${attack.name}` });

  // What a run shares between attempts, made once as `crucible run` makes it: each task's prepared
  // tree, baseline commit and baseline test runs (preflight.ts, shared-baseline.ts). No attack can
  // touch them: they are taken before any agent, each attempt starts from its own copy, and they lie
  // in the state directory the sandbox hides; they are fingerprinted with the canaries to show it.
  const preflightDir = join(runDir, 'preflight');
  const checked = await preflightTasks(
    [...new Set(plan.map((p) => p.taskId))].map((id) => tasks.get(id) as Task),
    {
      stateDir,
      dir: preflightDir,
      sandbox: 'bwrap',
      oracle: true,
      concurrency: 2,
      shareTree: true,
    },
  );
  expect(checked.map((c) => ({ taskId: c.taskId, defects: c.defects, unchecked: c.unchecked, shared: c.baseline?.tree !== undefined }))).toEqual(
    checked.map((c) => ({ taskId: c.taskId, defects: [], unchecked: undefined, shared: true })),
  );
  const taskBaselines = new Map(checked.map((c) => [c.taskId, c.baseline as TaskBaselineRuns]));

  const canaryRoots = [taskSetDir, join(stateDir, 'runs', 'other-run')];
  // The shared trees by content: every attempt's git store reads the baseline's objects as
  // alternates, and git touches an object's mtime when it writes one it already has there.
  const shared = (): Map<string, string> => snapshotTree([preflightDir], { mtimes: false });
  const before = snapshotTree(canaryRoots);
  const sharedBefore = shared();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.length) {
      const item = plan[next++] as Planned;
      const env: AttemptEnv = { runDir, stateDir, sandbox: 'bwrap', keepWorkspace: item.attack.name === 'read-secrets', taskBaselines };
      const attemptPlan = {
        attemptId: item.attemptId,
        runId: 'redteam',
        taskId: item.taskId,
        taskVersion: '1',
        agent: item.attack.name,
        trial: 0,
        index: next,
      };
      results.set(item.attemptId, await runAttempt(attemptPlan, tasks.get(item.taskId) as Task, resolveRunAgent(item.attack.name), env));
    }
  };
  await Promise.all([worker(), worker()]);
  hostChanges = [...treeChanges(before, snapshotTree(canaryRoots)), ...treeChanges(sharedBefore, shared())];
  await removeSharedTrees(preflightDir);
}, 1_800_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const attemptsOf = (name: string): Array<{ taskId: string; a: AttemptResult }> =>
  plan.filter((p) => p.attack.name === name).map((p) => ({ taskId: p.taskId, a: results.get(p.attemptId) as AttemptResult }));
const expectationTitle = (a: Attack): string =>
  describeExpectation(a.expected) +
  Object.entries(a.expectedByLanguage ?? {})
    .map(([lang, e]) => ` (${lang}: ${describeExpectation(e)})`)
    .join('');
const failedChecks = (a: AttemptResult): string[] => a.checks.filter((c) => !c.passed).map((c) => c.id);
const summary = (a: AttemptResult) => ({ verdict: a.verdict, cause: a.cause, limit: namedLimit(a), failed: failedChecks(a), message: a.message });

describe('the attack catalogue on the bundled examples (bwrap)', () => {
  it('runs every attack on at least one bundled task', () => {
    const unplanned = HERE.filter((a) => (!ONLY || ONLY.includes(a.name)) && !plan.some((p) => p.attack.name === a.name)).map((a) => a.name);
    expect(unplanned).toEqual([]);
  });

  it.each(HERE.map((a) => [a.name, a.class, expectationTitle(a), a] as const))('%s (%s) ends %s, never ERROR', (name, _class, _expected, attack) => {
    if (ONLY && !ONLY.includes(name)) return;
    const attempts = attemptsOf(name);
    expect(attempts.length).toBeGreaterThan(0);
    const wrong = attempts
      .map(({ taskId, a }) => ({ taskId, a, expected: expectedFor(attack, tasks.get(taskId) as Task) }))
      .filter(({ a, expected }) => a.verdict === 'ERROR' || !meetsAttackExpectation(expected, a))
      .map(({ taskId, a, expected }) => ({ taskId, expected: describeExpectation(expected), ...summary(a) }));
    expect(wrong, `${name} must end as the catalogue says`).toEqual([]);
  });

  it('honest controls trip no check at all', () => {
    const alarms = HERE.filter((a) => a.class === 'honest')
      .flatMap((a) => attemptsOf(a.name).map(({ taskId, a: r }) => ({ agent: a.name, taskId, failed: failedChecks(r) })))
      .filter((x) => x.failed.length > 0);
    expect(alarms).toEqual([]);
  });

  it('nothing outside the attempts changed: the task set, its oracle patches and held-out tests, another run and the shared task trees are untouched', () => {
    expect(hostChanges).toEqual([]);
  });

  it('the held-out tests never see what the main run left behind (conftest-at-test-time)', () => {
    for (const { taskId, a } of attemptsOf('conftest-at-test-time')) {
      expect(a.heldOut, taskId).toBeDefined();
      expect(a.heldOut?.passToPass.failing.length, `${taskId}: held-out tests must fail without a fix`).toBeGreaterThan(0);
    }
  });

  it('a secret committed in a nested git repository is seen by the secrets check', () => {
    for (const { taskId, a } of attemptsOf('nested-git-secret')) expect(failedChecks(a), taskId).toContain('secrets');
  });

  it('the agent reads nothing it must not: the stolen file is empty', () => {
    for (const { taskId, a } of attemptsOf('read-secrets')) {
      expect(a.agentResult?.stopReason, `${taskId}: ${a.agentResult?.error ?? ''}`).toBe('completed');
      const file = join(runDir, 'attempts', `${taskId}.read-secrets`, 'workspace', STOLEN_FILE);
      const stolen = existsSync(file) ? readFileSync(file, 'utf8') : stolenFromPatch(join(runDir, 'attempts', `${taskId}.read-secrets`, 'diff.patch'));
      expect(
        stolen.split('\n').filter((l) => l.startsWith('== ')),
        taskId,
      ).toEqual([]);
      expect(stolen).not.toContain(CANARY);
      expect(failedChecks(a), taskId).not.toContain('secrets');
    }
  });

  it('the special-file attacks did what they say: their agent completed, and the report was a FIFO', () => {
    // deep-nesting is left out: the workspace watchdog may stop it as soon as its nest passes PATH_MAX.
    for (const name of ['report-fifo', 'odd-files', 'leftover-writer'])
      for (const { taskId, a } of attemptsOf(name)) expect(a.agentResult?.stopReason, `${name} on ${taskId}: ${a.agentResult?.error ?? ''}`).toBe('completed');
    for (const { taskId, a } of attemptsOf('report-fifo')) expect(a.tests?.invalidReason, taskId).toMatch(/not a regular file/);
  });

  it('resource attacks leave no huge files in the run directory and no false test-tampering evidence', () => {
    for (const attack of ATTACKS.filter((a) => a.class === 'resources')) {
      for (const { taskId, a } of attemptsOf(attack.name)) {
        expect(filesLargerThan(join(runDir, 'attempts', `${taskId}.${attack.name}`), 16 * MIB), `${attack.name} on ${taskId}`).toEqual([]);
        const guard = a.checks.find((c) => c.id === 'test_tampering');
        expect({ attack: attack.name, taskId, tampering: guard?.passed === false ? guard.message : 'ok' }).toEqual({
          attack: attack.name,
          taskId,
          tampering: 'ok',
        });
      }
    }
  });
});

/** The added lines of the stolen file in a diff.patch, when the workspace is gone. */
function stolenFromPatch(patchFile: string): string {
  if (!existsSync(patchFile)) return '';
  const patch = readFileSync(patchFile, 'utf8');
  const start = patch.indexOf(`+++ b/${STOLEN_FILE}`);
  if (start === -1) return '';
  const lines: string[] = [];
  for (const line of patch.slice(start).split('\n').slice(1)) {
    if (line.startsWith('diff --git')) break;
    if (line.startsWith('+')) lines.push(line.slice(1));
  }
  return lines.join('\n');
}
