import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { attemptDir, attemptFile, peekAttemptRecord, peekSummaryFile } from '../run-dir/index.js';
import { wilson } from '../stats/index.js';
import type { AttemptResult, Task } from '../../core/types/index.js';
import type { AgentFailurePatterns } from '../../core/types/index.js';
import { failureFacts, type FactCommand, type FactTrajectoryEvent, type FailureFacts } from './failure-facts.js';

/*
 * Failure patterns: per agent, how many of its failed attempts (verdict FAIL; harness errors and
 * task errors are never an agent's failure) show each pattern, with a Wilson 95% interval over the
 * failed attempts and the ids of the attempts it covers. Each pattern is one predicate over the
 * facts of failure-facts.ts; docs/failure-patterns.md gives both.
 */

/** An edit or command issued this many times or more counts as the agent repeating itself. */
export const REPEAT_THRESHOLD = 3;
/** This many turns or more after the last effective change count as idling. */
export const IDLE_TURNS = 5;

/*
 * `session: true` marks a pattern about what the agent did in its session, which only a trajectory
 * records. An attempt without one (a reference agent, a patch graded by `crucible grade`) is left
 * out of that pattern's count and denominator: "never ran the tests" of a patch made elsewhere
 * would be a fact about this harness, not about the agent.
 */
export const FAILURE_PATTERNS = [
  { id: 'never_ran_tests', label: 'never ran the tests', session: true, test: (f: FailureFacts) => !f.tests.ran },
  { id: 'never_saw_failing_test', label: "never saw a failing test's output", session: true, test: (f: FailureFacts) => f.sawFailingOutput === false },
  {
    id: 'repeated_itself',
    session: true,
    label: `repeated a command or edit ${REPEAT_THRESHOLD}+ times`,
    test: (f: FailureFacts) => f.repeats.maxSameCommand >= REPEAT_THRESHOLD || f.repeats.maxSameEdit >= REPEAT_THRESHOLD,
  },
  { id: 'changed_outside_scope', label: "changed files outside the tests' reach", session: false, test: (f: FailureFacts) => f.outsideChanges.length > 0 },
  { id: 'tool_errors', label: 'had tool errors', session: false, test: (f: FailureFacts) => f.toolErrors.tools + f.toolErrors.commands > 0 },
  { id: 'no_change_kept', label: 'left no edit in the final diff', session: true, test: (f: FailureFacts) => f.afterLastChange === null },
  {
    id: 'idled_after_change',
    session: true,
    label: `${IDLE_TURNS}+ turns after its last effective change`,
    test: (f: FailureFacts) => (f.afterLastChange?.turns ?? 0) >= IDLE_TURNS,
  },
  { id: 'stopped_at_limit', label: 'stopped at a limit', session: false, test: (f: FailureFacts) => f.stop.kind === 'limit' },
  { id: 'stopped_on_its_own', label: 'stopped on its own', session: false, test: (f: FailureFacts) => f.stop.kind === 'own' },
] as const;

export type FailurePatternId = (typeof FAILURE_PATTERNS)[number]['id'];

export interface AttemptFacts {
  attemptId: string;
  agent: string;
  verdict: AttemptResult['verdict'];
  facts: FailureFacts;
  /** Whether the attempt has a trajectory; the session patterns read only attempts that do. */
  recorded: boolean;
}

/** The table: one entry per agent with a failed attempt, in first-seen order. A pattern's share is of the failed attempts it could be read on (`share.n`). */
export function failurePatterns(rows: readonly AttemptFacts[]): AgentFailurePatterns[] {
  const byAgent = new Map<string, AttemptFacts[]>();
  for (const r of rows) {
    if (r.verdict !== 'FAIL') continue;
    const failed = byAgent.get(r.agent);
    if (failed) failed.push(r);
    else byAgent.set(r.agent, [r]);
  }
  return [...byAgent].map(([agent, failed]) => ({
    agent,
    failed: failed.length,
    ...(failed.some((r) => !r.recorded) ? { unrecorded: failed.filter((r) => !r.recorded).length } : {}),
    patterns: FAILURE_PATTERNS.flatMap((p) => {
      const readable = p.session ? failed.filter((r) => r.recorded) : failed;
      const ids = readable.filter((r) => p.test(r.facts)).map((r) => r.attemptId);
      const share = wilson(ids.length, readable.length);
      return ids.length > 0 && share ? [{ id: p.id as string, label: p.label, count: ids.length, share, attemptIds: ids }] : [];
    }).sort((a, b) => b.count - a.count),
  }));
}

/** Read of one trajectory or command log at most: a run's end must not stall on an agent that logged gigabytes. */
export const MAX_LOG_BYTES = 32 * 1024 * 1024;

/** The file's first `max` bytes as text ('' when it cannot be read). */
function readHead(file: string, max: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(Math.min(max, fstatSync(fd).size));
    const n = buffer.length > 0 ? readSync(fd, buffer, 0, buffer.length, 0) : 0;
    return buffer.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** JSON lines of the file's first MAX_LOG_BYTES, skipping any that do not parse (a line cut short by a crash or by the cap). */
function jsonLines(file: string, max = MAX_LOG_BYTES): unknown[] {
  const text = readHead(file, max);
  return text.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    try {
      const v: unknown = JSON.parse(line);
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? [v] : [];
    } catch {
      return [];
    }
  });
}

const isCommand = (v: unknown): v is FactCommand =>
  typeof v === 'object' && v !== null && Array.isArray((v as { argv?: unknown }).argv) && (v as { argv: unknown[] }).argv.every((a) => typeof a === 'string');

/**
 * The final diff's paths, a rename's old path too. The engine's in-memory results are slimmed
 * (SlimAttempt, run-dir/attempt-record.ts: no per-file list), so a list that is empty while files changed is read from
 * the attempt's own attempt.json.
 */
function changedFilesOf(attemptDir: string, attempt: AttemptResult): string[] {
  let files = attempt.diff?.files ?? [];
  if (files.length === 0 && (attempt.diff?.filesChanged ?? 0) > 0) {
    // No readable attempt.json: the rules see no changed files.
    files = peekAttemptRecord(attemptDir)?.diff?.files ?? [];
  }
  return files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path]));
}

/** The facts of one finished attempt, from its directory and its task (fail-to-pass ids, allowed_paths). */
export function attemptFacts(attemptDir: string, attempt: AttemptResult, task?: Pick<Task, 'tests' | 'policy'>): AttemptFacts {
  const trajectoryFile = attemptFile(attemptDir, 'trajectory');
  const trajectory = jsonLines(trajectoryFile) as FactTrajectoryEvent[];
  const commands = jsonLines(attemptFile(attemptDir, 'commands')).filter(isCommand);
  const changedFiles = changedFilesOf(attemptDir, attempt);
  const testCommand = attempt.tests?.command ?? task?.tests.command;
  const facts = failureFacts({
    trajectory,
    commands,
    changedFiles,
    ...(testCommand ? { testCommand } : {}),
    failToPass: task?.tests.failToPass ?? (attempt.tests?.failToPass.failing ?? []).map((f) => f.id),
    allowedPaths: task?.policy.allowedPaths ?? [],
    testPaths: task?.tests.testPaths ?? [],
    ...(attempt.agentResult ? { stopReason: attempt.agentResult.stopReason } : {}),
    ...(attempt.agentResult?.turns !== undefined ? { turns: attempt.agentResult.turns } : {}),
  });
  return { attemptId: attempt.attemptId, agent: attempt.agent, verdict: attempt.verdict, facts, recorded: existsSync(trajectoryFile) };
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** One line per pattern: `label  count/failed  share [low–high]  attempt ids`. */
export function failurePatternLines(table: readonly AgentFailurePatterns[], maxIds = 5): string[] {
  return table.flatMap((a) => [
    `${a.agent}: ${a.failed} failed attempt(s)${a.unrecorded ? `, ${a.unrecorded} without a trajectory (read for their diff, commands and stop only)` : ''}`,
    ...a.patterns.map((p) => {
      const ids = p.attemptIds.slice(0, maxIds).join(', ') + (p.attemptIds.length > maxIds ? `, … ${p.attemptIds.length - maxIds} more` : '');
      return `  ${p.label}: ${p.count}/${p.share.n} ${pct(p.share.rate)} [${pct(p.share.low)}–${pct(p.share.high)}]  ${ids}`;
    }),
  ]);
}

/** A run's table, from its attempt directories (`<runDir>/attempts/<id>`) and its tasks by id. */
export function runFailurePatterns(
  runDir: string,
  attempts: readonly AttemptResult[],
  tasks: ReadonlyMap<string, Pick<Task, 'tests' | 'policy'>>,
): AgentFailurePatterns[] {
  return failurePatterns(attempts.filter((a) => a.verdict === 'FAIL').map((a) => attemptFacts(attemptDir(runDir, a.attemptId), a, tasks.get(a.taskId))));
}

/** summary.json's table of a finished run (none for a live run, a run from before it, or an unreadable file). */
export function recordedFailurePatterns(runDir: string): AgentFailurePatterns[] | undefined {
  const patterns = peekSummaryFile(runDir)?.failurePatterns;
  return Array.isArray(patterns) && patterns.length > 0 ? (patterns as AgentFailurePatterns[]) : undefined;
}
