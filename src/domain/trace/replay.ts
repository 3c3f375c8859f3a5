import { lstat, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runChecks } from '../checks/index.js';
import { judge, verifiedOutcome, type Outcome } from '../grading/index.js';
import type { Cause, CheckResult, Verdict } from '../../core/types/index.js';
import { verifyChain, type ChainCheck } from './chain.js';
import { END_OF_OUTCOME, TRACE_FILE, type ChainedEvent, type TraceEnd, type TraceOutcome } from './events.js';
import { rebuild } from './rebuild.js';

/** Traces past this size are refused rather than read into memory. */
export const MAX_TRACE_BYTES = 256 * 1024 * 1024;

export interface CheckComparison {
  id: string;
  recorded?: { passed: boolean; severity: string };
  replayed?: { passed: boolean; severity: string };
  match: boolean;
}

export interface AttemptReplay {
  attemptId: string;
  end?: TraceEnd;
  /** True when the trace verified and every check and the verdict came out as recorded. */
  match: boolean;
  checks: CheckComparison[];
  recorded?: { verdict: Verdict; cause: Cause };
  replayed?: { verdict: Verdict; cause: Cause };
  /** Why the attempt could not be replayed or did not match, in one line. */
  problem?: string;
  /** An attempt that ended before grading: there was nothing to re-grade, only its end to confirm. */
  note?: string;
}

/**
 * Re-grades a verified chain: rebuilds the outcome the attempt was judged on (for one that got as
 * far as the checks, from its evidence, through the registered checks and verifiedOutcome() as
 * engine/attempt.ts builds it), judges it, and compares with the checks and verdict the trace
 * recorded. Pure: no agent, test, container or network.
 */
export function replayEvents(attemptId: string, events: readonly ChainedEvent[]): AttemptReplay {
  let rebuilt;
  try {
    rebuilt = rebuild(events);
  } catch (error) {
    return { attemptId, match: false, checks: [], problem: `cannot rebuild the evidence: ${error instanceof Error ? error.message : String(error)}` };
  }
  const recorded = { verdict: rebuilt.recordedVerdict.verdict, cause: rebuilt.recordedVerdict.cause };
  const { input, agentResult, end, outcome: stored } = rebuilt;
  if (END_OF_OUTCOME[stored.kind] !== end) {
    return { attemptId, end, match: false, checks: [], recorded, problem: `the trace records an ${stored.kind} outcome but ends as ${end}` };
  }
  if (!input) {
    const judged = judge(earlyOutcome(stored));
    const replayed = { verdict: judged.verdict, cause: judged.cause };
    const match = replayed.verdict === recorded.verdict && replayed.cause === recorded.cause && rebuilt.recordedChecks.length === 0;
    return {
      attemptId,
      end,
      match,
      checks: [],
      recorded,
      replayed,
      note: `ended before grading (${end}): nothing to re-grade`,
      ...(match
        ? {}
        : {
            problem: `an attempt that ended as ${end} cannot have recorded ${recorded.verdict} ${recorded.cause}${rebuilt.recordedChecks.length > 0 ? ' with checks' : ''}`,
          }),
    };
  }
  const checks = runChecks(input);
  const comparisons = compareChecks(checks, rebuilt.recordedChecks);
  const outcome = verifiedOutcome({
    checks,
    tests: input.tests,
    baselineTests: input.baselineTests,
    heldOut: input.heldOut,
    commands: input.commands,
    agentResult,
  });
  const judged = judge(outcome);
  const replayed = { verdict: judged.verdict, cause: judged.cause };
  const checksMatch = comparisons.every((c) => c.match);
  const verdictMatch = replayed.verdict === recorded.verdict && replayed.cause === recorded.cause;
  const mismatched = comparisons.filter((c) => !c.match).map((c) => c.id);
  return {
    attemptId,
    end,
    match: checksMatch && verdictMatch,
    checks: comparisons,
    recorded,
    replayed,
    ...(checksMatch && verdictMatch
      ? {}
      : {
          problem: [
            mismatched.length > 0 ? `check(s) ${mismatched.join(', ')} differ` : '',
            verdictMatch ? '' : `verdict ${replayed.verdict} ${replayed.cause}, recorded ${recorded.verdict} ${recorded.cause}`,
          ]
            .filter((p) => p !== '')
            .join('; '),
        }),
  };
}

/** An outcome that ended before the checks, as judge() takes it: the messages are not in the trace (only their hashes). */
function earlyOutcome(stored: TraceOutcome): Outcome {
  switch (stored.kind) {
    case 'over_limit':
      return { kind: 'over_limit', limit: stored.limit, message: '' };
    case 'harness_fault':
      return { kind: 'harness_fault', ...(stored.phase !== undefined ? { phase: stored.phase } : {}), message: '' };
    case 'never_ran':
      return { kind: 'never_ran', reason: '' };
    case 'unverifiable':
    case 'task_defect':
      return { kind: stored.kind, message: '' };
    case 'graded':
      // rebuild() gives a graded trace its checks' input or throws: a graded outcome never gets here.
      throw new Error('a graded outcome has its evidence');
  }
}

function compareChecks(checks: readonly CheckResult[], recordedChecks: ReadonlyArray<{ id: string; passed: boolean; severity: string }>): CheckComparison[] {
  const comparisons: CheckComparison[] = [];
  const recordedIds = new Set(recordedChecks.map((c) => c.id));
  // A check added to Crucible after the trace was written has no recorded result: one that passes
  // changes nothing the trace says; one that fails would, and is a difference.
  const live = checks.filter((c) => recordedIds.has(c.id) || !c.passed);
  const count = Math.max(live.length, recordedChecks.length);
  for (let i = 0; i < count; i++) {
    const now = live[i];
    const was = recordedChecks[i];
    const match = now !== undefined && was !== undefined && now.id === was.id && now.passed === was.passed && now.severity === was.severity;
    comparisons.push({
      id: now?.id ?? was?.id ?? '?',
      ...(was ? { recorded: { passed: was.passed, severity: was.severity } } : {}),
      ...(now ? { replayed: { passed: now.passed, severity: now.severity } } : {}),
      match,
    });
  }
  return comparisons;
}

/** Reads an attempt directory's trace.jsonl (a regular file, not a link, within the size limit). */
export async function readTrace(attemptDir: string): Promise<string> {
  const file = join(attemptDir, TRACE_FILE);
  const stat = await lstat(file).catch(() => undefined);
  if (!stat) throw new TraceFileError(`${file}: no trace (fix: traces are written by Crucible runs that record them; run the attempt again)`);
  if (!stat.isFile()) throw new TraceFileError(`${file}: not a regular file (a symlink or device is never read as evidence)`);
  if (stat.size > MAX_TRACE_BYTES) throw new TraceFileError(`${file}: ${stat.size} bytes, over the ${MAX_TRACE_BYTES}-byte limit`);
  return readFile(file, 'utf8');
}

/** The trace file is missing or unusable as a file (as opposed to a chain that fails verification). */
export class TraceFileError extends Error {
  override readonly name = 'TraceFileError';
}

export interface AttemptVerification {
  attemptId: string;
  attemptDir: string;
  chain: ChainCheck;
}

/** Verifies one attempt directory's trace. */
export async function verifyAttemptTrace(attemptDir: string): Promise<AttemptVerification> {
  const text = await readTrace(attemptDir);
  const chain = verifyChain(text);
  return { attemptId: chain.ok ? chain.header.attemptId : (attemptDir.split('/').pop() ?? attemptDir), attemptDir, chain };
}

/** Verifies and replays one attempt directory, and holds the result against attempt.json when it is there. */
export async function replayAttemptDir(attemptDir: string): Promise<AttemptReplay> {
  const name = attemptDir.split('/').pop() ?? attemptDir;
  let text: string;
  try {
    text = await readTrace(attemptDir);
  } catch (error) {
    return { attemptId: name, match: false, checks: [], problem: error instanceof Error ? error.message : String(error) };
  }
  const chain = verifyChain(text);
  if (!chain.ok) return { attemptId: name, match: false, checks: [], problem: `${TRACE_FILE} line ${chain.line}: ${chain.reason}` };
  const replay = replayEvents(chain.header.attemptId, chain.events);
  const recorded = await readAttemptJson(attemptDir);
  if (recorded && replay.recorded && (recorded.verdict !== replay.recorded.verdict || recorded.cause !== replay.recorded.cause)) {
    return {
      ...replay,
      match: false,
      problem: `the trace records ${replay.recorded.verdict} ${replay.recorded.cause} but attempt.json says ${recorded.verdict} ${recorded.cause}`,
    };
  }
  return replay;
}

async function readAttemptJson(attemptDir: string): Promise<{ verdict?: string; cause?: string } | undefined> {
  const file = join(attemptDir, 'attempt.json');
  const stat = await lstat(file).catch(() => undefined);
  if (!stat?.isFile()) return undefined;
  try {
    return JSON.parse(await readFile(file, 'utf8')) as { verdict?: string; cause?: string };
  } catch {
    return undefined;
  }
}

/** The attempt directories of a run, in name order (directories only: links are not followed). */
export async function runAttemptDirs(runDir: string): Promise<string[]> {
  const entries = await readdir(join(runDir, 'attempts'), { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((n) => join(runDir, 'attempts', n));
}
