import { removeTree } from '../infra/workspace/index.js';
import type { AttemptResult } from '../core/types/index.js';
import {
  attemptDir,
  readAttemptBytes,
  readCheckpoint,
  rewriteCheckpoint,
  slimAttempt,
  type CheckpointEntry,
  type RunPlanFile,
  type SlimAttempt,
} from '../domain/run-dir/index.js';
import { canonicalJson, definingSettings, hashedSettings, type Plan } from './plan.js';

/** What a resumed run does with each attempt its checkpoint records. */
export interface Reconciled {
  /** Finished attempts that stay, by attempt id, as recorded in attempt.json (slimmed). */
  reused: Map<string, SlimAttempt>;
  /** Recorded attempts whose evidence no longer checks out; they run again. */
  rerun: Array<{ attemptId: string; reason: string }>;
  /** Recorded attempts the (forced) new plan no longer has; removed from the run. */
  superseded: string[];
  /**
   * Recorded harness errors that run again (`--retry-errors`); also among `rerun`. Their record is
   * removed (checkpoint line, attempt directory; the caller drops their history rows), so the
   * rerun replaces them and statistics count each attempt once.
   */
  retried: string[];
  /** Checkpoint lines that did not parse (a crash mid-append) or repeated an attempt. */
  malformed: number;
}

/**
 * Why a stored plan and a new one are not the same run, one phrase per difference; empty when
 * their config hashes agree.
 */
export function planDifferences(
  previous: RunPlanFile,
  next: Plan & { agents: readonly string[]; trials: number; settings: Record<string, unknown>; models?: Record<string, unknown> },
): string[] {
  if (previous.configHash === next.configHash) return [];
  const out: string[] = [];
  const before = new Map(previous.tasks.map((t) => [t.id, t]));
  const after = new Map(next.tasks.map((t) => [t.id, t]));
  const changed = next.tasks.filter((t) => before.has(t.id) && before.get(t.id)?.hash !== t.hash).map((t) => t.id);
  const removed = previous.tasks.filter((t) => !after.has(t.id)).map((t) => t.id);
  const added = next.tasks.filter((t) => !before.has(t.id)).map((t) => t.id);
  if (changed.length > 0) out.push(`task${changed.length > 1 ? 's' : ''} ${names(changed)} changed`);
  if (removed.length > 0) out.push(`task${removed.length > 1 ? 's' : ''} ${names(removed)} no longer selected`);
  if (added.length > 0) out.push(`task${added.length > 1 ? 's' : ''} ${names(added)} newly selected`);
  if (canonicalJson(previous.agents) !== canonicalJson(next.agents)) out.push(`agents ${previous.agents.join(', ')} → ${next.agents.join(', ')}`);
  if (previous.trials !== next.trials) out.push(`runs ${previous.trials} → ${next.trials}`);
  const was = definingSettings(hashedSettings(previous.settings, previous.models));
  const now = definingSettings(hashedSettings(next.settings, next.models));
  for (const key of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort()) {
    if (canonicalJson(was[key]) !== canonicalJson(now[key])) out.push(`${key} ${show(was[key])} → ${show(now[key])}`);
  }
  if (out.length === 0 && canonicalJson(previous.tasks.map((t) => t.id)) !== canonicalJson(next.tasks.map((t) => t.id))) out.push('task order changed');
  if (out.length === 0) out.push('the plan was made by another version of Crucible');
  return out;
}

/**
 * Sorts the checkpoint of a run being resumed into reused, rerun and superseded attempts,
 * rewrites the checkpoint to hold exactly the reused ones (dropping torn lines), and deletes the
 * directories of superseded attempts. `onReused` sees each reused attempt once, in plan order,
 * so the caller can re-record it in the history (which may have missed it in a crash).
 * With `retryErrors`, recorded harness errors (the machine's failures: a full disk, a sandbox
 * that would not start) run again too; task and agent failures stay as recorded.
 */
export async function reconcile(
  runDir: string,
  plan: Plan,
  onReused: (attempt: AttemptResult) => void,
  options: { retryErrors?: boolean } = {},
): Promise<Reconciled> {
  const indexOf = new Map(plan.attempts.map((a) => [a.attemptId, a.index]));
  const { entries, malformed, duplicates } = await readCheckpoint(runDir);
  const reused = new Map<string, SlimAttempt>();
  const kept: CheckpointEntry[] = [];
  const rerun: Reconciled['rerun'] = [];
  const superseded: string[] = [];
  const retried: string[] = [];
  for (const entry of [...entries].sort((x, y) => (indexOf.get(x.attemptId) ?? x.index) - (indexOf.get(y.attemptId) ?? y.index))) {
    const index = indexOf.get(entry.attemptId);
    if (index === undefined) {
      superseded.push(entry.attemptId);
      continue;
    }
    if (options.retryErrors && entry.verdict === 'ERROR' && (entry.cause === 'harness_error' || entry.cause === 'provider_error')) {
      rerun.push({ attemptId: entry.attemptId, reason: `a ${entry.cause === 'provider_error' ? 'provider' : 'harness'} error, retried (--retry-errors)` });
      retried.push(entry.attemptId);
      continue;
    }
    const checked = await checkRecorded(runDir, entry);
    if ('reason' in checked) {
      rerun.push({ attemptId: entry.attemptId, reason: checked.reason });
      continue;
    }
    // A forced resume may have reordered the plan; the attempt takes its place in the new one.
    const attempt = checked.attempt.index === index ? checked.attempt : { ...checked.attempt, index };
    reused.set(entry.attemptId, slimAttempt(attempt));
    kept.push({ ...entry, index });
    onReused(attempt);
  }
  if (malformed > 0 || duplicates > 0 || rerun.length > 0 || superseded.length > 0 || kept.some((e, i) => e.attemptId !== entries[i]?.attemptId)) {
    await rewriteCheckpoint(runDir, kept);
  }
  for (const id of [...superseded, ...retried]) await removeTree(attemptDir(runDir, id));
  return { reused, rerun, superseded, retried, malformed: malformed + duplicates };
}

async function checkRecorded(runDir: string, entry: CheckpointEntry): Promise<{ attempt: AttemptResult } | { reason: string }> {
  const file = await readAttemptBytes(runDir, entry.attemptId);
  if (file === undefined) return { reason: 'attempt.json is missing' };
  if (file.hash !== entry.sha256) return { reason: 'attempt.json changed after it was recorded' };
  try {
    const attempt = JSON.parse(file.bytes.toString('utf8')) as AttemptResult;
    if (attempt.attemptId !== entry.attemptId) return { reason: `attempt.json belongs to ${String(attempt.attemptId)}` };
    return { attempt };
  } catch {
    return { reason: 'attempt.json is not valid JSON' };
  }
}

function names(ids: readonly string[]): string {
  return ids.length > 4 ? `${ids.slice(0, 4).join(', ')} and ${ids.length - 4} more` : ids.join(', ');
}

function show(value: unknown): string {
  if (value === undefined) return 'unset';
  return typeof value === 'object' && value !== null ? canonicalJson(value) : String(value);
}
