export type { Agent, AgentContext } from './agent.js';
export { resolveAgent, referenceAgentNames } from './registry.js';
