import type { CheckInput } from '../checks/index.js';
import type { CommandEvent } from '../evidence/index.js';
import type { AgentResult, DiffStats, HeldOutValuesEvidence, TestCaseResult, TestRunEvidence } from '../../core/types/index.js';
import type { ChainedEvent, TestRunName, TraceEnd, TraceEventData, TraceEventType, TraceOutcome } from './events.js';

/** The typed evidence a trace holds, put back together: what the checks and grade() take. */
export interface RebuiltAttempt {
  attempt: TraceEventData['attempt'];
  end: TraceEnd;
  /** The outcome the attempt was judged on (read from `end` in traces written before outcomes were recorded). */
  outcome: TraceOutcome;
  /** Present when the attempt got as far as the checks (end `graded` or `never_ran`). */
  input?: CheckInput;
  agentResult?: AgentResult;
  recordedChecks: Array<TraceEventData['check']>;
  recordedVerdict: TraceEventData['verdict'];
}

/** A trace whose events do not make a whole attempt (a valid chain of the wrong events). */
export class TraceShapeError extends Error {
  override readonly name = 'TraceShapeError';
}

type Of<K extends TraceEventType> = TraceEventData[K];

/** Rebuilds the checks' input from a verified chain; throws TraceShapeError naming what is missing or inconsistent. */
export function rebuild(events: readonly ChainedEvent[]): RebuiltAttempt {
  const all = <K extends TraceEventType>(type: K): Array<Of<K>> => events.filter((e) => e.type === type).map((e) => e.data as Of<K>);
  const one = <K extends TraceEventType>(type: K): Of<K> | undefined => {
    const found = all(type);
    if (found.length > 1) throw new TraceShapeError(`the trace has ${found.length} ${type} events; an attempt has at most one`);
    return found[0];
  };
  const attempt = one('attempt');
  const verdict = one('verdict');
  if (!attempt) throw new TraceShapeError('the trace has no attempt event');
  if (!verdict) throw new TraceShapeError('the trace has no verdict event');
  if (events[events.length - 1]?.type !== 'verdict') throw new TraceShapeError('the verdict is not the last event');
  const agent = one('agent');
  const agentResult: AgentResult | undefined = agent
    ? {
        stopReason: agent.stopReason,
        ...(agent.errorKind ? { errorKind: agent.errorKind } : {}),
        ...(agent.limit ? { limit: agent.limit } : {}),
        ...(agent.provider ? { provider: agent.provider } : {}),
        ...(agent.replayMisses ? { replay: { looseMatches: 0, misses: agent.replayMisses } } : {}),
      }
    : undefined;
  const recordedChecks = all('check');
  const outcome = verdict.outcome ?? outcomeOfEnd(verdict);
  const base = { attempt, end: verdict.end, outcome, recordedChecks, recordedVerdict: verdict, ...(agentResult ? { agentResult } : {}) };
  if (outcome.kind !== 'graded' && outcome.kind !== 'never_ran') return base;

  const task = one('task');
  const policy = one('policy');
  const sandbox = one('sandbox');
  const diffTotals = one('diff');
  if (!task || !policy || !sandbox || !diffTotals) throw new TraceShapeError('a graded attempt needs its task, policy, sandbox and diff events');
  const diff: DiffStats = {
    files: all('file_change').map(({ oldBlob: _old, newBlob: _new, ...change }) => change),
    filesChanged: diffTotals.filesChanged,
    added: diffTotals.added,
    deleted: diffTotals.deleted,
    ...(diffTotals.patch ? { patch: diffTotals.patch } : {}),
  };
  const commands: CommandEvent[] = all('command').map(({ index: _index, ...c }) => ({ ...c, at: '' }));
  const run = (name: TestRunName): { evidence?: TestRunEvidence; cases?: TestCaseResult[] } => {
    const runs = all('test_run').filter((r) => r.run === name);
    if (runs.length > 1) throw new TraceShapeError(`the trace has ${runs.length} ${name} test runs`);
    const found = runs[0];
    if (!found) return {};
    const { outputSha256: _hash, ...evidence } = found.evidence;
    const outcomes = all('test_outcome').filter((o) => o.run === name);
    if ((found.cases ?? 0) !== outcomes.length) {
      throw new TraceShapeError(`the ${name} test run lists ${found.cases ?? 0} case(s) but the trace has ${outcomes.length} outcome(s) for it`);
    }
    const cases =
      found.cases === undefined ? undefined : outcomes.map((o): TestCaseResult => ({ id: o.id, status: o.status, ...(o.errored ? { errored: true } : {}) }));
    return { evidence: { ...evidence, outputTail: '' }, ...(cases ? { cases } : {}) };
  };
  const tests = run('tests');
  const baseline = run('baseline');
  const heldOut = run('held_out');
  const values = one('held_out_values');
  const tampering = one('tampering');
  const outsideWrites = one('outside_writes');
  const content = one('content_findings');
  const input: CheckInput = {
    task,
    policy,
    diff,
    ...(tests.evidence ? { tests: tests.evidence } : {}),
    ...(tests.cases ? { cases: tests.cases } : {}),
    ...(baseline.evidence ? { baselineTests: baseline.evidence } : {}),
    ...(baseline.cases ? { baselineCases: baseline.cases } : {}),
    ...(heldOut.evidence ? { heldOut: heldOut.evidence } : {}),
    ...(values ? { heldOutValues: withoutHash(values) } : {}),
    ...(tampering ? { tampering } : {}),
    commands,
    writeRoots: sandbox.writeRoots,
    ...(sandbox.reportDir !== undefined ? { reportDir: sandbox.reportDir } : {}),
    ...(outsideWrites ? { outsideWrites } : {}),
    sandboxEnforcesFs: sandbox.sandboxEnforcesFs,
    ...(content ? { content } : {}),
  };
  return { ...base, input };
}

function withoutHash(values: TraceEventData['held_out_values']): HeldOutValuesEvidence {
  const { outputSha256: _hash, ...rest } = values;
  return { ...rest, outputTail: '' };
}

/** The outcome of a trace written before outcomes were recorded: its `end`, and the limit its verdict named. */
export function outcomeOfEnd(verdict: Pick<TraceEventData['verdict'], 'end' | 'resourceLimit'>): TraceOutcome {
  switch (verdict.end) {
    case 'graded':
    case 'never_ran':
    case 'unverifiable':
      return { kind: verdict.end };
    case 'task_error':
      return { kind: 'task_defect' };
    case 'harness_error':
      return { kind: 'harness_fault' };
    case 'resource':
      if (verdict.resourceLimit === undefined) throw new TraceShapeError('a verdict that ended on a resource limit names no limit');
      return { kind: 'over_limit', limit: verdict.resourceLimit };
  }
}
