/** A task set's strength (`crucible validate --strength`, docs/strength.md) as runs and reports show it. */
/** In one line's worth: the median over the measured tasks and the weakest ones. */
export interface StrengthSummary {
  /** Tasks with a measured strength. */
  measured: number;
  median?: number;
  /** The weakest tasks, weakest first (at most three). */
  weakest: Array<{ taskId: string; strength: number; survivors: number }>;
  /** The highest flake rate among the tasks, and the tasks whose verdict changed between identical runs. */
  flakeRate: number;
  unstable: string[];
}

/**
 * A PASS whose diff adds a line a surviving mutant of the task has (trimmed, in the same file): the
 * agent may have written that wrong fix, and the task's tests would not have told. A hint to read
 * the attempt, not a verdict.
 */
export interface StrengthResemblance {
  attemptId: string;
  agent: string;
  taskId: string;
  trial: number;
  mutants: Array<{ id: string; operator: string; file: string; line: number; after: string }>;
}
