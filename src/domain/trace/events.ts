import type { CheckInput, ContentFinding, ContentScan, EffectivePolicy } from '../checks/index.js';
import type { CommandEvent, FsGuardEvidence, TestGuardEvidence } from '../evidence/index.js';
import type { OutcomeKind } from '../grading/index.js';
import type {
  AgentResult,
  Cause,
  FileChange,
  HeldOutValuesEvidence,
  ResourceLimitName,
  Severity,
  TestCaseResult,
  TestRunEvidence,
  Verdict,
} from '../../core/types/index.js';

export const TRACE_FORMAT = 'crucible-trace';
export const TRACE_VERSION = 1;
export const TRACE_FILE = 'trace.jsonl';

/** The first line: written last, it commits to the chain's length and its last hash. */
export interface TraceHeader {
  format: typeof TRACE_FORMAT;
  version: typeof TRACE_VERSION;
  attemptId: string;
  runId: string;
  events: number;
  /** The hash of the last event (the genesis hash when there are none). */
  last: string;
}

/** How the attempt ended: only `graded` and `never_ran` went through the checks and grade(). */
export type TraceEnd = 'graded' | 'never_ran' | 'resource' | 'unverifiable' | 'task_error' | 'harness_error';

/**
 * The outcome judge() was given (src/domain/grading/judge.ts), without what other events hold (the
 * checks, the agent's stop) or its message: what a replay rebuilds and judges again. Traces
 * written before it existed have only `end`; rebuild.ts reads those through `outcomeOfEnd`.
 */
export type TraceOutcome =
  { kind: 'over_limit'; limit: ResourceLimitName } | { kind: 'harness_fault'; phase?: string } | { kind: Exclude<OutcomeKind, 'over_limit' | 'harness_fault'> };

/** The end an outcome is recorded as (the field every trace has, old and new). */
export const END_OF_OUTCOME: Readonly<Record<OutcomeKind, TraceEnd>> = {
  graded: 'graded',
  never_ran: 'never_ran',
  over_limit: 'resource',
  unverifiable: 'unverifiable',
  task_defect: 'task_error',
  harness_fault: 'harness_error',
};

export type TestRunName = 'baseline' | 'baseline_held_out' | 'tests' | 'held_out';

/** Every event type, in the order a trace holds them; the set is closed (an unknown type fails verify). */
export interface TraceEventData {
  attempt: { attemptId: string; runId: string; taskId: string; agent: string; trial: number; sandbox: string };
  task: CheckInput['task'];
  /** The effective policy with the task's literal secrets replaced by a placeholder (their count is kept). */
  policy: EffectivePolicy;
  sandbox: { writeRoots: CheckInput['writeRoots']; reportDir?: string; sandboxEnforcesFs: boolean };
  agent: {
    stopReason: AgentResult['stopReason'];
    errorKind?: AgentResult['errorKind'];
    limit?: ResourceLimitName;
    errorSha256?: string;
    /** What grading reads of the provider and of a replay (provider_error, cassette errors). */
    provider?: AgentResult['provider'];
    replayMisses?: number;
  };
  /** argv sanitized (credential-like flags and values redacted); the output is not recorded, only its hash when the executor gave one. */
  command: Omit<CommandEvent, 'at'> & { index: number };
  file_change: FileChange & { oldBlob?: string; newBlob?: string };
  diff: { filesChanged: number; added: number; deleted: number; patch?: { bytes: number; truncated: boolean; capBytes: number } };
  /** `cases`: how many test_outcome events of this run follow (absent: the run had no parsed cases to judge by id). */
  test_run: { run: TestRunName; evidence: Omit<TestRunEvidence, 'outputTail'> & { outputSha256: string }; cases?: number };
  test_outcome: { run: TestRunName; id: string; status: TestCaseResult['status']; errored?: true };
  /** The held-out value run, its output by hash like a test run's. */
  held_out_values: Omit<HeldOutValuesEvidence, 'outputTail'> & { outputSha256: string };
  tampering: TestGuardEvidence;
  outside_writes: FsGuardEvidence;
  content_findings: Omit<ContentScan, 'findings'> & { findings: Array<Omit<ContentFinding, 'excerpt'>> };
  check: { id: string; passed: boolean; severity: Severity; messageSha256: string };
  verdict: { end: TraceEnd; outcome?: TraceOutcome; verdict: Verdict; cause: Cause; score?: number; resourceLimit?: ResourceLimitName; messageSha256: string };
}

export type TraceEventType = keyof TraceEventData;

export const TRACE_EVENT_TYPES: readonly TraceEventType[] = [
  'attempt',
  'task',
  'policy',
  'sandbox',
  'agent',
  'command',
  'file_change',
  'diff',
  'test_run',
  'test_outcome',
  'held_out_values',
  'tampering',
  'outside_writes',
  'content_findings',
  'check',
  'verdict',
];

/** An event before it is chained. */
export type TraceEvent = { [K in TraceEventType]: { type: K; data: TraceEventData[K] } }[TraceEventType];

/** An event as a line of trace.jsonl. */
export type ChainedEvent = TraceEvent & { seq: number; prev: string; hash: string };
