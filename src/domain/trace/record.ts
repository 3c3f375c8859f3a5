import { lstat, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandEvent } from '../evidence/index.js';
import type { CheckInput } from '../checks/index.js';
import type { ChangeBlobs } from '../evaluation/index.js';
import type { Outcome } from '../grading/index.js';
import type { AttemptResult, DiffStats, TestCaseResult, TestRunEvidence } from '../../core/types/index.js';
import { sha256 } from './canonical.js';
import { sealTrace } from './chain.js';
import { END_OF_OUTCOME, TRACE_FILE, type TestRunName, type TraceEnd, type TraceEvent, type TraceOutcome } from './events.js';
import { redactArgv } from '../../core/redact/index.js';
import { hostPathMapper, mapStrings, type HostDirs } from './host-paths.js';

/** What a trace records of a verified attempt: the checks' input, and what only verification could read. */
export interface TraceEvidence {
  checkInput: CheckInput;
  /** Git blob ids before and after, per changed path (from the baseline and the captured tree). */
  blobs: ChangeBlobs;
  heldOutCases?: TestCaseResult[];
}

/** How the attempt was judged: the outcome judge() was given, and the evidence when verification ran. */
export interface Judged {
  outcome?: Outcome;
  evidence?: TraceEvidence;
}

/** The placeholder that stands for each of the task's literal secrets in a trace. */
export const LITERAL_PLACEHOLDER = '<literal>';

/**
 * Writes `trace.jsonl` for a finished attempt: what the checks judged (when it got that far),
 * then the checks and the verdict recorded. Written under a temporary name and renamed, so the
 * file is whole or absent. Never throws: an attempt is recorded even when its trace cannot be.
 */
export async function writeTrace(
  attemptDir: string,
  result: AttemptResult,
  judged: Judged = {},
  hostDirs: Omit<HostDirs, 'attemptDir'> = {},
): Promise<boolean> {
  const { evidence } = judged;
  const file = join(attemptDir, TRACE_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const commands = evidence ? evidence.checkInput.commands : await readCommandLog(join(attemptDir, 'commands.jsonl'));
    const events = mapStrings(traceEvents(result, commands, judged), hostPathMapper({ attemptDir, ...hostDirs }));
    const text = sealTrace({ attemptId: result.attemptId, runId: result.runId }, events);
    await writeFile(temp, text, { flag: 'w', mode: 0o644 });
    await rename(temp, file);
    return true;
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
    return false;
  }
}

/** The events of one attempt, in trace order. */
export function traceEvents(result: AttemptResult, commands: readonly CommandEvent[], judged: Judged = {}): TraceEvent[] {
  const { evidence, outcome } = judged;
  const events: TraceEvent[] = [];
  const input = evidence?.checkInput;
  events.push({
    type: 'attempt',
    data: { attemptId: result.attemptId, runId: result.runId, taskId: result.taskId, agent: result.agent, trial: result.trial, sandbox: result.sandbox },
  });
  if (input) {
    const { task, policy } = input;
    events.push({
      type: 'task',
      data: {
        id: task.id,
        tests: task.tests,
        ...(task.heldOut ? { heldOut: task.heldOut } : {}),
        ...(task.heldOutValues ? { heldOutValues: task.heldOutValues } : {}),
      },
    });
    events.push({ type: 'policy', data: { ...policy, secrets: { ...policy.secrets, literals: policy.secrets.literals.map(() => LITERAL_PLACEHOLDER) } } });
    events.push({
      type: 'sandbox',
      data: {
        writeRoots: input.writeRoots,
        ...(input.reportDir !== undefined ? { reportDir: input.reportDir } : {}),
        sandboxEnforcesFs: input.sandboxEnforcesFs,
      },
    });
  }
  const agent = result.agentResult;
  if (agent) {
    events.push({
      type: 'agent',
      data: {
        stopReason: agent.stopReason,
        ...(agent.errorKind !== undefined ? { errorKind: agent.errorKind } : {}),
        ...(agent.limit !== undefined ? { limit: agent.limit } : {}),
        ...(agent.error !== undefined ? { errorSha256: sha256(agent.error) } : {}),
        ...(agent.provider !== undefined ? { provider: agent.provider } : {}),
        ...(agent.replay?.misses ? { replayMisses: agent.replay.misses } : {}),
      },
    });
  }
  commands.forEach((c, index) => {
    const { at: _at, argv, ...rest } = c;
    events.push({ type: 'command', data: { ...rest, argv: redactArgv(argv), index } });
  });
  const diff: DiffStats | undefined = input?.diff ?? result.diff;
  if (diff) {
    for (const change of diff.files) {
      const newBlob = evidence?.blobs[change.path]?.new;
      const oldBlob = evidence?.blobs[change.oldPath ?? change.path]?.old;
      events.push({ type: 'file_change', data: { ...change, ...(oldBlob ? { oldBlob } : {}), ...(newBlob ? { newBlob } : {}) } });
    }
    events.push({
      type: 'diff',
      data: { filesChanged: diff.filesChanged, added: diff.added, deleted: diff.deleted, ...(diff.patch ? { patch: diff.patch } : {}) },
    });
  }
  const runs: Array<[TestRunName, TestRunEvidence | undefined, TestCaseResult[] | undefined]> = [
    ['baseline', input ? input.baselineTests : result.baselineTests, input?.baselineCases],
    ['baseline_held_out', result.baselineHeldOut, undefined],
    ['tests', input ? input.tests : result.tests, input?.cases],
    ['held_out', input ? input.heldOut : result.heldOut, evidence?.heldOutCases],
  ];
  for (const [run, tests, cases] of runs) {
    if (!tests) continue;
    const { outputTail, ...rest } = tests;
    events.push({ type: 'test_run', data: { run, evidence: { ...rest, outputSha256: sha256(outputTail) }, ...(cases ? { cases: cases.length } : {}) } });
    for (const c of cases ?? []) events.push({ type: 'test_outcome', data: { run, id: c.id, status: c.status, ...(c.errored ? { errored: true } : {}) } });
  }
  if (input?.heldOutValues) {
    const { outputTail, ...values } = input.heldOutValues;
    events.push({ type: 'held_out_values', data: { ...values, outputSha256: sha256(outputTail) } });
  }
  if (input?.tampering) events.push({ type: 'tampering', data: input.tampering });
  if (input?.outsideWrites) events.push({ type: 'outside_writes', data: input.outsideWrites });
  if (input?.content) {
    const { findings, ...scan } = input.content;
    events.push({ type: 'content_findings', data: { ...scan, findings: findings.map(({ excerpt: _excerpt, ...f }) => f) } });
  }
  for (const c of result.checks) {
    events.push({ type: 'check', data: { id: c.id, passed: c.passed, severity: c.severity, messageSha256: sha256(c.message) } });
  }
  events.push({
    type: 'verdict',
    data: {
      end: outcome ? END_OF_OUTCOME[outcome.kind] : endOf(result, evidence !== undefined),
      ...(outcome ? { outcome: traceOutcome(outcome) } : {}),
      verdict: result.verdict,
      cause: result.cause,
      ...(result.score !== undefined ? { score: result.score } : {}),
      ...(result.resourceLimit !== undefined ? { resourceLimit: result.resourceLimit } : {}),
      messageSha256: sha256(result.message),
    },
  });
  return events;
}

/** The outcome without its evidence and message: those are in the other events, or hashed. */
function traceOutcome(outcome: Outcome): TraceOutcome {
  if (outcome.kind === 'over_limit') return { kind: outcome.kind, limit: outcome.limit };
  if (outcome.kind === 'harness_fault') return { kind: outcome.kind, ...(outcome.phase !== undefined ? { phase: outcome.phase } : {}) };
  return { kind: outcome.kind };
}

/** How the engine ended an attempt recorded without its outcome (bench/matrix.mjs's instant attempts), from the record. */
function endOf(result: AttemptResult, verified: boolean): TraceEnd {
  if (verified) return result.cause === 'harness_error' && result.harnessError?.phase === 'verify' ? 'never_ran' : 'graded';
  if (result.cause === 'task_error') return 'task_error';
  if (result.cause === 'harness_error') return 'harness_error';
  if (result.cause === 'resource_exceeded') return 'resource';
  return 'unverifiable';
}

/** commands.jsonl as the harness wrote it (an attempt that ended before verification). */
async function readCommandLog(file: string): Promise<CommandEvent[]> {
  const stat = await lstat(file).catch(() => undefined);
  if (!stat?.isFile()) return [];
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as CommandEvent];
      } catch {
        return [];
      }
    });
}
