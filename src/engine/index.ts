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
  type RunKind,
  runsDirOf,
} from './run.js';
export {
  runAdaptive,
  describeAdaptiveStop,
  describeGateDecision,
  type AdaptiveRunOptions,
  type AdaptiveStop,
  type AdaptiveSummary,
  type AdaptiveGateSummary,
} from './adaptive-run.js';
export { AttemptWithdrawn } from './attempt-loop.js';
export { preflightTasks, type PreflightOptions, type TaskPreflight } from './preflight.js';
export { taskErrorAttempt } from './task-error.js';
export { runAttempt, type AttemptEnv } from './attempt.js';
export {
  openBench,
  benchPaths,
  SetupCommandError,
  type Bench,
  type BenchSpec,
  type BenchSource,
  type BenchSandbox,
  type BenchPlace,
  type BenchReports,
  type BenchChange,
  type BenchEvaluation,
  type BaselineRuns,
} from './bench.js';
export {
  expandPlan,
  checkPlanSize,
  MAX_PLANNED_ATTEMPTS,
  attemptId,
  configHash,
  taskHash,
  taskIdentity,
  newRunId,
  type Plan,
  type PlannedTask,
  type PlanSettings,
} from './plan.js';
export { schedule } from './scheduler.js';
// The run directory's readers, for the front ends that reach them through the engine (src/domain/run-dir/ owns them).
export {
  findRunDir,
  readPlanFile,
  runsDir,
  writeFileAtomic,
  ATTEMPT_JUNIT_FILES,
  PLAN_SCHEMA_VERSION,
  readCheckpoint,
  type RunPlanFile,
  type GradePredictionsRef,
  type ResumeRecord,
  type CheckpointEntry,
} from '../domain/run-dir/index.js';
export {
  compareRuns,
  type RunComparison,
  type CellDelta,
  type CellCounts,
  type AgentRunComparison,
  type RunCells,
  type TaskImages,
  type EnvironmentChange,
} from './compare.js';
export {
  runTaskTests,
  listTests,
  suggestTestIds,
  type TaskTestsOptions,
  type TaskTestSide,
  type TestSide,
  type TestIdOutcome,
  type ListedTest,
  type TestIdSuggestion,
} from './task-tests.js';
export { ATTEMPT_SCRATCH_DIRS, type TaskBaselineRuns } from './attempt.js';
export { startRunModels, type ModelRunOptions, type RunModels } from './gateway-lifecycle.js';
export { slimAttempt } from '../domain/run-dir/index.js';
export type { RunBudgetReport } from './run-budget.js';
export { openSession, inSession, type RunSession, type SessionOptions, type SessionSignal, type SignalSource } from './session.js';
export { runValidation, type ValidationRunOptions, type ValidationTaskSet } from './validation-run.js';
export { checkModelSpecs, DEFAULT_MAX_TURNS } from './gateway-lifecycle.js';
