import type { PairedComparison } from './stats.js';

/* A comparison of two runs, cell by cell and agent by agent (computed by engine/compare.ts). */

/** One (agent, task) cell of a run: scored attempts `n` (harness errors apart), passes among them. */
export interface CellCounts {
  agent: string;
  taskId: string;
  n: number;
  passes: number;
  errors: number;
}

/** The images one task's attempts ran on in one run. */
export interface TaskImages {
  /** The references as configured (an image tag, a Dockerfile), sorted. */
  references: string[];
  /** Local image ids, sorted. */
  imageIds: string[];
}

/** A task both runs ran on different images: a rebuilt Dockerfile, or one tag that named two images. */
export interface EnvironmentChange {
  taskId: string;
  a: TaskImages;
  b: TaskImages;
}

export type CellChange = 'worse' | 'better' | 'same' | 'only in A' | 'only in B' | 'unscored';

export interface CellDelta {
  agent: string;
  taskId: string;
  a: CellCounts | null;
  b: CellCounts | null;
  /** Pass rates over scored attempts; null when the cell is missing or every attempt errored. */
  rateA: number | null;
  rateB: number | null;
  /** rateB − rateA. */
  delta: number | null;
  change: CellChange;
}

export interface AgentRunComparison {
  /** The agent as it ran in A and in B (the same name unless each run had one agent). */
  agentA: string;
  agentB: string;
  /** `A better` means run A's agent did better. */
  comparison: PairedComparison;
}

export interface RunComparison {
  runA: string;
  runB: string;
  /** Every cell of either run, ordered by agent then task. */
  cells: CellDelta[];
  /** Cells whose pass rate fell from A to B. Single cells are noisy: the paired verdict says whether the change is real. */
  regressions: CellDelta[];
  improvements: CellDelta[];
  pairs: AgentRunComparison[];
  notes: string[];
  /** Tasks whose images differ between the runs (absent when none do, or neither run used docker). */
  environmentChanges?: EnvironmentChange[];
}
