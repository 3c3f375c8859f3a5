export type { Agent, AgentContext, AgentPrepared, AgentPrepareEnv, ModelAccess, ModelLimits } from './agent.js';
export { resolveAgent, referenceAgentNames, loadAgentCatalog, isProfileSpec, type AgentCatalogSources } from './registry.js';
export type { AgentProfile, AgentProtocol, AgentProtocolKind, AgentOutputFormat } from './external/profile.js';
export type { ProfileCatalog, LoadedProfile } from './external/profile-load.js';
export { agentCacheDir, profileHash, resolveProgram, type ResolvedProgram, type ResolveProgramOptions } from './external/install.js';
export { TRAJECTORY_FILE, type TrajectoryEvent } from './builtin/trajectory.js';
export { isModelSpec, parseModelSpec, upstreamFor, PROVIDERS, type ModelSpec, type ProviderName } from './models/providers.js';
