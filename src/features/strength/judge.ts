import type { AttemptResult, TestRunEvidence } from '../../core/types/index.js';
import type { Mutant, MutantSet } from './mutants.js';

/**
 * What grading made of one mutant:
 * - `killed`: the task failed it, as it should;
 * - `survived`: the task PASSED it — a concrete wrong fix the task accepts;
 * - `unloadable`: its tests never ran (no usable report, or not one fail-to-pass test reported):
 *   the mutant does not compile or load, which says nothing about the tests;
 * - `unapplied`: its patch did not apply;
 * - `error`: the harness or the task failed (no verdict on the mutant).
 * Only killed and survived count toward strength.
 */
export type MutantStatus = 'killed' | 'survived' | 'unloadable' | 'unapplied' | 'error';

export interface MutantOutcome {
  status: MutantStatus;
  verdict: AttemptResult['verdict'];
  cause: AttemptResult['cause'];
}

export function judgeMutant(a: Pick<AttemptResult, 'verdict' | 'cause' | 'tests' | 'agentResult'>): MutantOutcome {
  const outcome = (status: MutantStatus): MutantOutcome => ({ status, verdict: a.verdict, cause: a.cause });
  if (a.verdict === 'ERROR') return outcome('error');
  if (a.agentResult?.stopReason === 'error') return outcome('unapplied');
  if (a.verdict === 'PASS') return outcome('survived');
  if (a.tests && neverRan(a.tests)) return outcome('unloadable');
  return outcome('killed');
}

/** The report is unusable, or it names none of the fail-to-pass tests: the code under test did not load. */
function neverRan(t: TestRunEvidence): boolean {
  if (t.invalidReason !== undefined || t.parsed === 0) return true;
  const f2p = t.failToPass;
  return f2p.total > 0 && f2p.failing.length === f2p.total && f2p.failing.every((f) => f.reason === 'missing');
}

export interface SurvivingMutant extends Omit<Mutant, 'patch'> {
  /** Where the mutant's patch is saved, relative to the strength file. */
  patchFile: string;
}

export interface TaskStrength {
  taskId: string;
  /** The cache key: the task's grading content (tests, oracle, repo, held-out tests). */
  taskKey: string;
  /** killed / (killed + survived); absent when no mutant counted. */
  strength?: number;
  counts: Record<MutantStatus, number>;
  /** Distinct mutants found, before `--max-mutants` sampling. */
  candidates: number;
  sampled: number;
  sameAsOracle: number;
  unsupportedFiles: string[];
  survivors: SurvivingMutant[];
  /** Outcomes by mutant id (the ones a re-run takes from the cache). */
  outcomes: Record<string, MutantOutcome>;
  flake?: TaskFlake;
  /** Why there is no strength: no oracle patch, an oracle script, an invalid task. */
  skipped?: string;
}

export function summarizeStrength(
  taskId: string,
  taskKey: string,
  set: MutantSet,
  outcomes: ReadonlyMap<string, MutantOutcome>,
  patchFile: (m: Mutant) => string,
): TaskStrength {
  const counts: Record<MutantStatus, number> = { killed: 0, survived: 0, unloadable: 0, unapplied: 0, error: 0 };
  const survivors: SurvivingMutant[] = [];
  const recorded: Record<string, MutantOutcome> = {};
  for (const m of set.mutants) {
    const o = outcomes.get(m.id);
    if (!o) continue;
    recorded[m.id] = o;
    counts[o.status]++;
    if (o.status === 'survived') {
      const { patch: _patch, ...rest } = m;
      survivors.push({ ...rest, patchFile: patchFile(m) });
    }
  }
  const counted = counts.killed + counts.survived;
  return {
    taskId,
    taskKey,
    ...(counted > 0 ? { strength: counts.killed / counted } : {}),
    counts,
    candidates: set.candidates,
    sampled: set.mutants.length,
    sameAsOracle: set.sameAsOracle,
    unsupportedFiles: set.unsupportedFiles,
    survivors,
    outcomes: recorded,
  };
}

/** Test outcomes across identical runs (the same agent on the same task): which tests changed. */
export interface TaskFlake {
  /** Flaky test ids / test ids seen; 0 when every test kept its outcome. */
  rate: number;
  /** Test ids seen in the runs compared. */
  tests: number;
  runs: number;
  /** Per flaky test id: the share of runs whose outcome was not its most common one. */
  flaky: Array<{ id: string; agent: string; rate: number }>;
  /** Agents whose verdict changed between identical runs. */
  verdictChanged: string[];
}

const PASSED = 'passed';

/** One run's outcome per test id; tests not listed as failing passed. */
function outcomesOf(a: AttemptResult): Map<string, string> {
  const out = new Map<string, string>();
  const add = (prefix: string, t: TestRunEvidence | undefined): void => {
    for (const f of [...(t?.failToPass.failing ?? []), ...(t?.passToPass.failing ?? [])]) out.set(`${prefix}${f.id}`, f.reason);
  };
  add('', a.tests);
  add('held-out: ', a.heldOut);
  return out;
}

function testsSeen(a: AttemptResult): number {
  const count = (t: TestRunEvidence | undefined): number => (t ? t.failToPass.total + t.passToPass.total : 0);
  return count(a.tests) + count(a.heldOut);
}

/**
 * Flakiness from the repeated runs of `validate` (oracle, and nop under --strength): a test whose
 * outcome differs between runs of the same agent is flaky, and so is a task whose verdict does.
 * Runs that ended in a harness or task error are left out: they are not identical runs.
 */
export function judgeFlake(attempts: readonly AttemptResult[]): TaskFlake {
  const byAgent = new Map<string, AttemptResult[]>();
  for (const a of attempts) if (a.verdict !== 'ERROR') byAgent.set(a.agent, [...(byAgent.get(a.agent) ?? []), a]);
  const flaky: TaskFlake['flaky'] = [];
  const verdictChanged: string[] = [];
  let tests = 0;
  let runs = 0;
  for (const [agent, group] of byAgent) {
    tests = Math.max(tests, ...group.map(testsSeen));
    runs = Math.max(runs, group.length);
    if (group.length < 2) continue;
    if (new Set(group.map((a) => a.verdict)).size > 1) verdictChanged.push(agent);
    const each = group.map(outcomesOf);
    const ids = new Set(each.flatMap((m) => [...m.keys()]));
    for (const id of [...ids].sort()) {
      const seen = each.map((m) => m.get(id) ?? PASSED);
      const tally = new Map<string, number>();
      for (const s of seen) tally.set(s, (tally.get(s) ?? 0) + 1);
      if (tally.size < 2) continue;
      const most = Math.max(...tally.values());
      flaky.push({ id, agent, rate: (seen.length - most) / seen.length });
    }
  }
  const distinct = new Set(flaky.map((f) => f.id)).size;
  return { rate: tests > 0 ? Math.min(1, distinct / tests) : 0, tests, runs, flaky, verdictChanged };
}
