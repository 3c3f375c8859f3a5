import { CHECK_IDS, type AttemptResult, type Cause, type CheckId, type Verdict } from '../../core/types/index.js';
import type { AgentContract } from './contract.js';
import type { Registry } from './registry.js';

/** What the audit reads of an attempt: who, which trial, and what grading said. */
export type AuditAttempt = Pick<AttemptResult, 'taskId' | 'agent' | 'trial' | 'verdict' | 'cause'> & {
  checks: ReadonlyArray<Pick<AttemptResult['checks'][number], 'id' | 'passed'>>;
};

/** One distinct way the trials of a task and agent ended, and in which trials. */
export interface TrialOutcome {
  verdict: Verdict;
  cause: Cause;
  /** Checks that failed, in registry order. */
  failedChecks: string[];
  count: number;
  /** 0-based trial numbers. */
  trials: number[];
}

/** A way the trials departed from the contract: one field, what was expected, what was seen, how often. */
export interface Departure {
  field: 'verdict' | 'cause' | 'check' | 'attempts';
  /** With field `check`: which check. */
  check?: string;
  expected: string;
  seen: string;
  /** Trials that departed this way, out of `of`. */
  count: number;
  of: number;
}

export interface AgentAudit {
  agent: string;
  expected: AgentContract;
  trials: number;
  outcomes: TrialOutcome[];
  departures: Departure[];
  /** The trials disagree with each other (more than one outcome). */
  unstable: boolean;
}

export interface TaskAudit {
  taskId: string;
  family: string;
  conform: boolean;
  departs: boolean;
  unstable: boolean;
  agents: AgentAudit[];
}

export interface FamilyAudit {
  id: string;
  version: string;
  description?: string;
  conform: boolean;
  /** Tasks with a departure, and tasks whose trials disagree. */
  departing: number;
  unstable: number;
  tasks: TaskAudit[];
}

/**
 * The distinct outcomes of a task's trials for one agent (verdict, cause and the set of failed
 * checks), most frequent first. More than one is instability: the same agent on the same task did
 * not end the same way every time.
 */
export function trialOutcomes(attempts: readonly AuditAttempt[]): TrialOutcome[] {
  const byKey = new Map<string, TrialOutcome>();
  for (const a of [...attempts].sort((x, y) => x.trial - y.trial)) {
    const failedChecks = CHECK_IDS.filter((id) => a.checks.some((c) => c.id === id && !c.passed));
    const key = JSON.stringify([a.verdict, a.cause, failedChecks]);
    const known = byKey.get(key);
    if (known) {
      known.count += 1;
      known.trials.push(a.trial);
    } else byKey.set(key, { verdict: a.verdict, cause: a.cause, failedChecks, count: 1, trials: [a.trial] });
  }
  return [...byKey.values()].sort((x, y) => y.count - x.count || (x.trials[0] ?? 0) - (y.trials[0] ?? 0));
}

export function isUnstable(outcomes: readonly TrialOutcome[]): boolean {
  return outcomes.length > 1;
}

/** Where the trials' outcomes depart from the contract, each way counted over the trials. */
export function departures(contract: AgentContract, outcomes: readonly TrialOutcome[], attempts: readonly AuditAttempt[], runs: number): Departure[] {
  const of = outcomes.reduce((n, o) => n + o.count, 0);
  const found: Departure[] = [];
  if (of < runs) found.push({ field: 'attempts', expected: String(runs), seen: String(of), count: runs - of, of: runs });
  const add = (d: Omit<Departure, 'count' | 'of'>, count: number): void => {
    const same = found.find((f) => f.field === d.field && f.check === d.check && f.expected === d.expected && f.seen === d.seen);
    if (same) same.count += count;
    else found.push({ ...d, count, of });
  };
  for (const o of outcomes) {
    if (o.verdict !== contract.verdict) add({ field: 'verdict', expected: contract.verdict, seen: o.verdict }, o.count);
    if (contract.cause !== undefined && o.cause !== contract.cause) add({ field: 'cause', expected: contract.cause, seen: o.cause }, o.count);
  }
  const mustPass: readonly CheckId[] = contract.mustPass === 'all' ? CHECK_IDS : contract.mustPass;
  for (const a of attempts) {
    for (const id of mustPass) {
      const check = a.checks.find((c) => c.id === id);
      if (check?.passed !== true) add({ field: 'check', check: id, expected: 'passed', seen: check ? 'failed' : 'not run' }, 1);
    }
    for (const id of contract.mustFail) {
      const check = a.checks.find((c) => c.id === id);
      if (check?.passed !== false) add({ field: 'check', check: id, expected: 'failed', seen: check ? 'passed' : 'not run' }, 1);
    }
  }
  return found;
}

/** Judges every registered task's attempts against its family's contract. Pure: the same input gives the same report. */
export function judgeAudit(registry: Registry, attempts: readonly AuditAttempt[], runs: number, audited: ReadonlySet<string>): FamilyAudit[] {
  return registry.families
    .map((family): FamilyAudit => {
      const tasks = family.taskIds
        .filter((id) => audited.has(id))
        .map((taskId): TaskAudit => {
          const agents = Object.entries(family.contract).map(([agent, expected]): AgentAudit => {
            const mine = attempts.filter((a) => a.taskId === taskId && a.agent === agent);
            const outcomes = trialOutcomes(mine);
            return { agent, expected, trials: mine.length, outcomes, departures: departures(expected, outcomes, mine, runs), unstable: isUnstable(outcomes) };
          });
          const departs = agents.some((a) => a.departures.length > 0);
          const unstable = agents.some((a) => a.unstable);
          return { taskId, family: family.id, conform: !departs && !unstable, departs, unstable, agents };
        });
      return {
        id: family.id,
        version: family.version,
        ...(family.description === undefined ? {} : { description: family.description }),
        conform: tasks.every((t) => t.conform),
        departing: tasks.filter((t) => t.departs).length,
        unstable: tasks.filter((t) => t.unstable).length,
        tasks,
      };
    })
    .filter((f) => f.tasks.length > 0);
}
