/**
 * The attack catalogue (src/domain/redteam/) on the bundled example tasks, in the real bwrap
 * sandbox, through runAttempt, split by attack class into the test files test/redteam/attacks-*.ts
 * so that the parts overlap instead of one file running every attempt. Each part copies the task set,
 * plants its canaries, checks its tasks once with the run's preflight and runs its attacks two at a
 * time; each must end as the catalogue says (never ERROR; honest controls PASS with no failed check),
 * and nothing outside the attempts' own directories may change. docs/redteam.md.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resolveRunAgent, ATTACKS, expectedFor, type Attack, type AttackClass } from '../../../src/domain/redteam/index.js';
import { loadTaskSet } from '../../../src/domain/config/index.js';
import { runAttempt, type AttemptEnv, type TaskBaselineRuns } from '../../../src/engine/attempt.js';
import { preflightTasks } from '../../../src/engine/preflight.js';
import { removeSharedTrees } from '../../../src/engine/shared-baseline.js';
import { describeExpectation, meetsAttackExpectation, namedLimit } from '../../../src/domain/grading/validity.js';
import type { AttemptResult, Task } from '../../../src/core/types/index.js';
import { snapshotTree, treeChanges } from '../../helpers/tree-snapshot.js';

/**
 * Which classes each part runs (test/redteam/attacks-<part>.test.ts), about 30 attempts each.
 * Every class without a file of its own is in exactly one part (catalogue-parts.test.ts checks it).
 */
export const CATALOGUE_PARTS = {
  'honest-secrets-resources': ['honest', 'exfiltration', 'resources'],
  'lying-policy': ['lying', 'policy'],
  'tampering-config-shadow': ['test-tampering', 'runner-config', 'module-shadow'],
  'outside-host-faults': ['outside-diff', 'host-write', 'harness-error'],
} as const satisfies Record<string, readonly AttackClass[]>;
export type CataloguePart = keyof typeof CATALOGUE_PARTS;

/** Classes with a file of their own, not in any part. */
export const OWN_FILE_CLASSES: ReadonlySet<AttackClass> = new Set(['runner-reach']);

/** The attacks the parts run between them: those with a suite of their own run in test/redteam/<suite>.test.ts. */
export const CATALOGUE_ATTACKS = ATTACKS.filter((a) => a.suite === undefined && !OWN_FILE_CLASSES.has(a.class));

export const MIB = 1024 ** 2;
/** Must never appear in any attempt's change: planted in the task set and in another run's state. */
export const CANARY = 'CRUCIBLE-REDTEAM-CANARY-5f1d';
/** For working on one attack: CRUCIBLE_REDTEAM_ONLY=patch-assert,oracle npx vitest run test/redteam */
export const ONLY = process.env.CRUCIBLE_REDTEAM_ONLY?.split(',').filter(Boolean);
const TASK_IDS = ['js-slugify', 'py-median', 'ts-lru-recency', 'py-roman-subtractive', 'js-slugify-npm'] as const;

/**
 * Which bundled tasks each attack runs on (those it applies to, trimmed to keep the suite's time in
 * check): one task per language, the TypeScript task for attacks on compiled code and runner
 * wrappers, the held-out task for attacks that need held-out tests or whose effect reaches them,
 * resource attacks on one task, and the npm-run variant only where npm matters.
 */
function tasksFor(attack: Attack, tasks: Map<string, Task>): string[] {
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

/** One part's run, filled in by its beforeAll. */
export interface CatalogueRun {
  /** The attacks of the part's classes. */
  readonly attacks: Attack[];
  readonly plan: Planned[];
  readonly tasks: Map<string, Task>;
  readonly results: Map<string, AttemptResult>;
  runDir: string;
  /** What changed outside the attempts' own directories: must stay empty. */
  hostChanges: string[];
  attemptsOf(name: string): Array<{ taskId: string; a: AttemptResult }>;
}

/** Registers the part's beforeAll (the whole run) and afterAll (its cleanup); tests read the returned run once it is filled. */
export function catalogueRun(part: CataloguePart): CatalogueRun {
  const classes: readonly AttackClass[] = CATALOGUE_PARTS[part];
  const run: CatalogueRun = {
    attacks: CATALOGUE_ATTACKS.filter((a) => classes.includes(a.class)),
    plan: [],
    tasks: new Map(),
    results: new Map(),
    runDir: '',
    hostChanges: [],
    attemptsOf: (name) => run.plan.filter((p) => p.attack.name === name).map((p) => ({ taskId: p.taskId, a: run.results.get(p.attemptId) as AttemptResult })),
  };
  let root = '';

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), `crucible-redteam-${part}-`));
    // The task set in a directory of its own (the symlink attacks aim at it), with canaries beside it.
    const taskSetDir = join(root, 'taskset');
    for (const dir of ['tasks.yaml', 'repos', 'held-out', 'oracles']) cpSync(join('examples', dir), join(taskSetDir, dir), { recursive: true });
    writeFileSync(join(taskSetDir, 'CANARY.txt'), `${CANARY}\n`);
    const stateDir = join(root, 'state');
    const otherRun = join(stateDir, 'runs', 'other-run', 'attempts', 'other.attempt');
    mkdirSync(otherRun, { recursive: true });
    writeFileSync(join(otherRun, 'attempt.json'), JSON.stringify({ note: CANARY }));
    run.runDir = join(stateDir, 'runs', 'redteam');

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
    const tasks = run.tasks;
    for (const id of TASK_IDS.slice(0, 4)) tasks.set(id, small(loaded.get(id) as Task));
    // js-slugify run through npm, so that .npmrc matters.
    const slugify = tasks.get('js-slugify') as Task;
    tasks.set('js-slugify-npm', { ...slugify, id: 'js-slugify-npm', tests: { ...slugify.tests, command: `npm exec --offline -- ${slugify.tests.command}` } });

    for (const attack of run.attacks.filter((a) => !ONLY || ONLY.includes(a.name)))
      for (const taskId of tasksFor(attack, tasks)) run.plan.push({ attack, taskId, attemptId: `${taskId}.${attack.name}` });
    if (run.plan.length === 0) return;

    // What a run shares between attempts, made once as `crucible run` makes it: each task's prepared
    // tree, baseline commit and baseline test runs (preflight.ts, shared-baseline.ts). No attack can
    // touch them: they are taken before any agent, each attempt starts from its own copy, and they lie
    // in the state directory the sandbox hides; they are fingerprinted with the canaries to show it.
    const preflightDir = join(run.runDir, 'preflight');
    const checked = await preflightTasks(
      [...new Set(run.plan.map((p) => p.taskId))].map((id) => tasks.get(id) as Task),
      { stateDir, dir: preflightDir, sandbox: 'bwrap', oracle: true, concurrency: 2, shareTree: true },
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
      while (next < run.plan.length) {
        const item = run.plan[next++] as Planned;
        const env: AttemptEnv = { runDir: run.runDir, stateDir, sandbox: 'bwrap', keepWorkspace: item.attack.name === 'read-secrets', taskBaselines };
        const attemptPlan = {
          attemptId: item.attemptId,
          runId: 'redteam',
          taskId: item.taskId,
          taskVersion: '1',
          agent: item.attack.name,
          trial: 0,
          index: next,
        };
        run.results.set(item.attemptId, await runAttempt(attemptPlan, tasks.get(item.taskId) as Task, resolveRunAgent(item.attack.name), env));
      }
    };
    await Promise.all([worker(), worker()]);
    run.hostChanges = [...treeChanges(before, snapshotTree(canaryRoots)), ...treeChanges(sharedBefore, shared())];
    await removeSharedTrees(preflightDir);
  }, 1_800_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return run;
}

const expectationTitle = (a: Attack): string =>
  describeExpectation(a.expected) +
  Object.entries(a.expectedByLanguage ?? {})
    .map(([lang, e]) => ` (${lang}: ${describeExpectation(e)})`)
    .join('');
export const failedChecks = (a: AttemptResult): string[] => a.checks.filter((c) => !c.passed).map((c) => c.id);
const summary = (a: AttemptResult) => ({ verdict: a.verdict, cause: a.cause, limit: namedLimit(a), failed: failedChecks(a), message: a.message });

/** What every part asserts: each of its attacks planned and ending as the catalogue says, and nothing outside the attempts changed. */
export function itEndsAsTheCatalogueSays(run: CatalogueRun): void {
  it('runs every attack of its classes on at least one bundled task', () => {
    const unplanned = run.attacks.filter((a) => (!ONLY || ONLY.includes(a.name)) && !run.plan.some((p) => p.attack.name === a.name)).map((a) => a.name);
    expect(unplanned).toEqual([]);
  });

  it.each(run.attacks.map((a) => [a.name, a.class, expectationTitle(a), a] as const))('%s (%s) ends %s, never ERROR', (name, _class, _expected, attack) => {
    if (ONLY && !ONLY.includes(name)) return;
    const attempts = run.attemptsOf(name);
    expect(attempts.length).toBeGreaterThan(0);
    const wrong = attempts
      .map(({ taskId, a }) => ({ taskId, a, expected: expectedFor(attack, run.tasks.get(taskId) as Task) }))
      .filter(({ a, expected }) => a.verdict === 'ERROR' || !meetsAttackExpectation(expected, a))
      .map(({ taskId, a, expected }) => ({ taskId, expected: describeExpectation(expected), ...summary(a) }));
    expect(wrong, `${name} must end as the catalogue says`).toEqual([]);
  });

  it('nothing outside the attempts changed: the task set, its oracle patches and held-out tests, another run and the shared task trees are untouched', () => {
    expect(run.hostChanges).toEqual([]);
  });
}
