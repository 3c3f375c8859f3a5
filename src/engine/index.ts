/** The run engine's public entry: plans, runs, resumes and compares runs; the CLI and other front ends use only this. */
export {
  executeRun,
  defaultConcurrency,
  DEFAULT_GRACE_MS,
  type RunOptions,
  type RunOutcome,
  type RunObserver,
  type RunStartInfo,
  type RunSummaryFile,
  type RunEnd,
  type AttemptSettings,
  type AttemptRunner,
} from './run.js';
export { runAttempt, type AttemptEnv } from './attempt.js';
export { expandPlan, checkPlanSize, MAX_PLANNED_ATTEMPTS, attemptId, configHash, taskHash, newRunId, type Plan, type PlannedTask, type PlanSettings } from './plan.js';
export { schedule } from './scheduler.js';
export { selectTasks, type TaskSelection } from './select.js';
export { findRunDir, readPlanFile, runsDir, writeFileAtomic, ATTEMPT_JUNIT_FILES, PLAN_SCHEMA_VERSION, type RunPlanFile, type ResumeRecord } from './run-files.js';
export { readCheckpoint, CHECKPOINT_FILE, type CheckpointEntry } from './checkpoint.js';
export { compareRuns, type RunComparison, type CellDelta, type CellCounts, type AgentRunComparison, type RunCells } from './compare.js';
export {
  aggregateRun,
  RUN_STATS_SCHEMA_VERSION,
  UNASSIGNED_REPO,
  type RunStats,
  type AgentStats,
  type AgentComparison,
  type CellStats,
  type RepoProfile,
  type RepoSection,
  type RateEstimate,
  type Measured,
  type PassKEstimate,
  type AggregateOptions,
} from './aggregate.js';
