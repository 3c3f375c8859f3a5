export type { Agent, AgentContext, AgentPrepared, AgentPrepareEnv, ModelAccess, ModelLimits } from './agent.js';
export { resolveAgent, referenceAgentNames } from './registry.js';
export { TRAJECTORY_FILE, type TrajectoryEvent } from './builtin/trajectory.js';
export { isModelSpec, parseModelSpec, upstreamFor, PROVIDERS, type ModelSpec, type ProviderName } from './models/providers.js';
