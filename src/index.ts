/**
 * Crucible as a library: the same parts the CLI is a thin shell over. Load a task set, run a plan
 * of attempts, read the history, write reports; or use a part alone (the sandbox, the gateway).
 */
export type * from './types/index.js';
export { ATTEMPT_SCHEMA_VERSION, RUN_SCHEMA_VERSION, CAUSES, UNSCORED_CAUSES, VERDICTS, CHECK_IDS } from './types/index.js';
export { InputError, ConfigError, OptionError, StateDirError, EXIT_DISK_FULL, type StateDirFault } from './errors.js';
export { loadTaskSet, taskSetJsonSchema, type TaskSet } from './config/index.js';
export { selectTasks, type TaskSelection } from './tasks/index.js';
export { executeRun, preflightTasks, runAttempt, compareRuns, type RunOptions, type RunOutcome, type AttemptEnv } from './engine/index.js';
export { resolveAgent, referenceAgentNames, type Agent, type AgentContext } from './agents/index.js';
export { loadAgentCatalog, resolveProgram, profileHash, agentCacheDir, type AgentProfile, type ProfileCatalog, type ResolvedProgram } from './agents/index.js';
export { createExecutor, resolveSandbox, detectBwrap, type Executor, type ExecRequest, type ExecResult, type SandboxLayout } from './sandbox/index.js';
export { startGateway, loadPricing, type Gateway, type GatewayOptions } from './gateway/index.js';
export { openHistory, type History, type HistoryReader } from './store/index.js';
export { writeReports, type Reporter } from './report/index.js';
export { wilson, clusteredBootstrap, passAtK, passHatK, pairedComparison, newcombeDifference, aggregateRun } from './stats/index.js';
export { loadRegistry, defaultRegistry, judgeAudit, trialOutcomes, DEFAULT_CONTRACT, type Registry, type Contract, type AuditReport } from './audit/index.js';
export {
  runFuzz,
  runMatrixStress,
  runMutations,
  runAblation,
  shippedCatalog,
  listDiagnostics,
  type FuzzReport,
  type MatrixStressReport,
  type Judgement,
  type Ablation,
} from './diagnostics/index.js';
export { verifyRunDir, canonicalJson, type AttemptManifest, type RunManifest, type VerifyReport } from './manifest/index.js';
export { redactArgv, redactText } from './redact/index.js';
export {
  verifyChain,
  replayAttemptDir,
  replayEvents,
  runMetamorphic,
  sealTrace,
  TRACE_FILE,
  type AttemptReplay,
  type MetamorphicReport,
} from './trace/index.js';
export { startGuard, watchTree, guardCounts, GUARD_MODES, type GuardSession, type GuardFinding, type IncidentBundle } from './guard/index.js';
export { createPack, verifyPack, importPack, installPack, loadTrustPolicy, type TrustPolicy, type VerifiedPack, type ImportedPack } from './pack/index.js';

export { openQueueRunner, startWorker, parseQueueUrl, type QueueRunner, type WorkerHandle, type QueueAddress } from './distributed/index.js';
