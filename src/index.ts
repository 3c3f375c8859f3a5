/**
 * Crucible as a library: the same parts the CLI is a thin shell over.
 *
 * The root entry is cheap to import (no dependency is loaded until a function is called): it
 * holds the types, the constants, the error classes and every asynchronous entry point, each of
 * which loads its part on first call. The synchronous parts (loading a task set, opening the
 * history, the statistics, redaction, …) are the package's subpath entries, one per folder
 * (`crucible-harness/config`, `crucible-harness/store`, `crucible-harness/stats`, …; package.json
 * `exports` lists them), and cost what they load.
 */
export type * from './core/types/index.js';
export { ATTEMPT_SCHEMA_VERSION, RUN_SCHEMA_VERSION, CAUSES, UNSCORED_CAUSES, VERDICTS, CHECK_IDS } from './core/types/index.js';
export { InputError, ConfigError, OptionError, StateDirError, EXIT_DISK_FULL, type StateDirFault } from './core/errors.js';

export type { TaskSet } from './domain/config/index.js';
export type { TaskSelection } from './domain/tasks/index.js';
export type { RunOptions, RunOutcome, AttemptEnv } from './engine/index.js';
export type { Agent, AgentContext, AgentProfile, ProfileCatalog, ResolvedProgram } from './domain/agents/index.js';
export type { Executor, ExecRequest, ExecResult, SandboxLayout } from './infra/sandbox/index.js';
export type { Gateway, GatewayOptions } from './infra/gateway/index.js';
export type { History, HistoryReader } from './infra/store/index.js';
export type { Reporter } from './features/report/index.js';
export type { Registry, Contract, AuditReport } from './features/audit/index.js';
export type { FuzzReport, MatrixStressReport, Judgement, Ablation } from './features/diagnostics/index.js';
export type { AttemptManifest, RunManifest, VerifyReport } from './domain/manifest/index.js';
export type { AttemptReplay, MetamorphicReport } from './domain/trace/index.js';
export type { GuardSession, GuardFinding, IncidentBundle } from './domain/guard/index.js';
export type { TrustPolicy, VerifiedPack, ImportedPack } from './features/pack/index.js';
export type { QueueRunner, WorkerHandle, QueueAddress } from './features/distributed/index.js';

type Engine = typeof import('./engine/index.js');
type Agents = typeof import('./domain/agents/index.js');
type Sandbox = typeof import('./infra/sandbox/index.js');
type Gateways = typeof import('./infra/gateway/index.js');
type Reports = typeof import('./features/report/index.js');
type Diagnostics = typeof import('./features/diagnostics/index.js');
type Manifests = typeof import('./domain/manifest/index.js');
type Traces = typeof import('./domain/trace/index.js');
type Guards = typeof import('./domain/guard/index.js');
type Packs = typeof import('./features/pack/index.js');
type Distributed = typeof import('./features/distributed/index.js');

// Each part is imported on the first call of one of its functions; Node caches the module after.
const engine = (): Promise<Engine> => import('./engine/index.js');
const agents = (): Promise<Agents> => import('./domain/agents/index.js');
const sandbox = (): Promise<Sandbox> => import('./infra/sandbox/index.js');
const gateway = (): Promise<Gateways> => import('./infra/gateway/index.js');
const report = (): Promise<Reports> => import('./features/report/index.js');
const diagnostics = (): Promise<Diagnostics> => import('./features/diagnostics/index.js');
const manifest = (): Promise<Manifests> => import('./domain/manifest/index.js');
const trace = (): Promise<Traces> => import('./domain/trace/index.js');
const guard = (): Promise<Guards> => import('./domain/guard/index.js');
const pack = (): Promise<Packs> => import('./features/pack/index.js');
const distributed = (): Promise<Distributed> => import('./features/distributed/index.js');

export const executeRun: Engine['executeRun'] = async (...args) => (await engine()).executeRun(...args);
export const preflightTasks: Engine['preflightTasks'] = async (...args) => (await engine()).preflightTasks(...args);
export const runAttempt: Engine['runAttempt'] = async (...args) => (await engine()).runAttempt(...args);
export const resolveProgram: Agents['resolveProgram'] = async (...args) => (await agents()).resolveProgram(...args);
export const resolveSandbox: Sandbox['resolveSandbox'] = async (...args) => (await sandbox()).resolveSandbox(...args);
export const detectBwrap: Sandbox['detectBwrap'] = async (...args) => (await sandbox()).detectBwrap(...args);
export const startGateway: Gateways['startGateway'] = async (...args) => (await gateway()).startGateway(...args);
export const writeReports: Reports['writeReports'] = async (...args) => (await report()).writeReports(...args);
export const runFuzz: Diagnostics['runFuzz'] = async (...args) => (await diagnostics()).runFuzz(...args);
export const runMatrixStress: Diagnostics['runMatrixStress'] = async (...args) => (await diagnostics()).runMatrixStress(...args);
export const runMutations: Diagnostics['runMutations'] = async (...args) => (await diagnostics()).runMutations(...args);
export const runAblation: Diagnostics['runAblation'] = async (...args) => (await diagnostics()).runAblation(...args);
export const listDiagnostics: Diagnostics['listDiagnostics'] = async (...args) => (await diagnostics()).listDiagnostics(...args);
export const verifyRunDir: Manifests['verifyRunDir'] = async (...args) => (await manifest()).verifyRunDir(...args);
export const replayAttemptDir: Traces['replayAttemptDir'] = async (...args) => (await trace()).replayAttemptDir(...args);
export const startGuard: Guards['startGuard'] = async (...args) => (await guard()).startGuard(...args);
export const watchTree: Guards['watchTree'] = async (...args) => (await guard()).watchTree(...args);
export const createPack: Packs['createPack'] = async (...args) => (await pack()).createPack(...args);
export const verifyPack: Packs['verifyPack'] = async (...args) => (await pack()).verifyPack(...args);
export const importPack: Packs['importPack'] = async (...args) => (await pack()).importPack(...args);
export const installPack: Packs['installPack'] = async (...args) => (await pack()).installPack(...args);
export const openQueueRunner: Distributed['openQueueRunner'] = async (...args) => (await distributed()).openQueueRunner(...args);
export const startWorker: Distributed['startWorker'] = async (...args) => (await distributed()).startWorker(...args);
