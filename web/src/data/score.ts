import { UNSCORED_CAUSES, type Cause } from '../../../src/core/types/index.js';

/**
 * The score an attempt page shows, or undefined where a number would mislead: an attempt that
 * changed nothing (`no_changes`, a nop) or that says nothing about the agent (task, harness or
 * provider error) was not graded on its work, so "score 50" there is noise, not a half pass.
 */
export function meaningfulScore(attempt: { score?: number; cause: Cause }): number | undefined {
  if (attempt.cause === 'no_changes' || UNSCORED_CAUSES.has(attempt.cause)) return undefined;
  return attempt.score;
}
