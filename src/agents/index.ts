export type { Agent, AgentContext, AgentPrepared, AgentPrepareEnv, ModelAccess, ModelLimits } from './agent.js';
export { resolveAgent, referenceAgentNames, loadAgentCatalog, isProfileSpec, type AgentCatalogSources } from './registry.js';
export {
  agentCacheDir,
  profileHash,
  resolveProgram,
  type AgentOutputFormat,
  type AgentProfile,
  type AgentProtocol,
  type AgentProtocolKind,
  type LoadedProfile,
  type ProfileCatalog,
  type ResolvedProgram,
  type ResolveProgramOptions,
} from './external/index.js';
export { TRAJECTORY_FILE, type TrajectoryEvent } from './builtin/trajectory.js';
export { isModelSpec, parseModelSpec, upstreamFor, PROVIDERS, type ModelSpec, type ProviderName } from './models/providers.js';
export { agentsFileSchema, parseProfiles, profileSchema } from './external/index.js';
export { createPatchAgent } from './reference/patch.js';
