/** Evidence taken from an attempt: the change, the diff, test runs and their reports, guards and scans. */
export { MAX_PATCH_BYTES, readAddedLines, type AddedLinesScan } from './added-lines.js';
export { captureChange } from './change.js';
export { recordingExecutor, type CommandEvent } from './command-log.js';
export { collectDiff } from './diff.js';
export { startFsGuard, finishFsGuard, type FsGuard, type FsGuardEvidence, type OutsideWrite } from './fs-guard.js';
export { globToRegExp, matcher, firstMatch } from './glob.js';
export { parseJUnit } from './junit.js';
export { parseReport, reportInstruction, reportLabel, REPORT_SOURCES, TEST_FORMATS } from './report-format.js';
export { ignoredManifest, notGraded, type IgnoredManifest } from './not-graded.js';
export { runTests } from './run-tests.js';
export { parseRewardJson, parseRewardText, readReward, runRewardVerifier, REWARD_FILES, type RewardReading } from './reward.js';
export { DEPENDENCY_PATHS, WHOLE_FILE_TEST_CONFIG } from './test-config.js';
export { protectTests, type TamperFinding, type TestGuardEvidence } from './test-guard.js';
export { findModuleShadows, type ModuleShadow } from './module-shadows.js';
export { classifyTests, classifyAsMissing, duplicateIds } from './test-outcome-groups.js';
export { scanWorkspace, describeScanLimit, watchTrees } from './workspace-scan.js';
export { setupFailure, setupOutputText, SETUP_OUTPUT_FILE, type SetupFailure } from './setup-failure.js';
export { isRunMarkerId } from './report-common.js';
