/**
 * The run directory: every file name of a run and an attempt directory, and their readers and
 * writers. Everything that reads or writes `<state>/runs/<id>/…` goes through here, so the layout
 * (a stored format old runs keep) is decided in one place.
 */
export {
  RUN_FILES,
  RUN_REPORT_FILES,
  ATTEMPT_FILES,
  ATTEMPT_JUNIT_FILES,
  runFolderOf,
  runsDirOf,
  runsDir,
  runFile,
  attemptsDir,
  attemptDir,
  attemptFile,
  attemptRecordFile,
  type RunKind,
  type RunFileName,
  type AttemptFileName,
} from './names.js';
export { writeFileAtomic, writeJsonAtomic } from './atomic.js';
export {
  PLAN_SCHEMA_VERSION,
  hasPlan,
  readPlanFile,
  peekPlanFile,
  writePlanFile,
  createRunDir,
  type RunPlanFile,
  type PlannedTask,
  type AdaptiveRunOptions,
  type ResumeRecord,
  type GradePredictionsRef,
} from './plan-file.js';
export { writeSummaryFile, peekSummaryFile, type StoredSummary } from './summary-file.js';
export { findRunDir, attemptDirNames, listAttemptDirs } from './locate.js';
export { checkpointEntry, appendCheckpoint, rewriteCheckpoint, readCheckpoint, type CheckpointEntry } from './checkpoint.js';
export { slimAttempt, readAttemptBytes, readAttemptRecord, peekAttemptRecord, writeAttemptRecord, type SlimAttempt } from './attempt-record.js';
