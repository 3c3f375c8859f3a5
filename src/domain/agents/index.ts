export type { Agent, AgentContext, AgentPrepared, AgentPrepareEnv, ModelAccess, ModelLimits } from './agent.js';
export { resolveAgent, referenceAgentNames, loadAgentCatalog, onlyReferenceAgents, isProfileSpec, type AgentCatalogSources } from './registry.js';
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
export { createPatchAgent, SUBMITTED_PATCH_FILE } from './reference/patch.js';
// What the red team's attack agents (src/domain/redteam/) build on: the oracle and misbehaving reference
// agents, and the small programs every reference agent runs in the sandbox.
export { oracleAgent } from './reference/oracle.js';
export {
  deleteTestsAgent,
  fakeJunitAgent,
  outsideWriteAgent,
  scopeCreepAgent,
  secretLeakAgent,
  skipByConftestAgent,
  skipTestsAgent,
  tamperAgent,
} from './reference/misbehaving.js';
export { crashed, runNodeScript, shellQuote, writeFiles, type FileWrite } from './reference/script.js';
export { applyOraclePatch, oraclePatchFiles } from './reference/oracle-patch.js';
export { ORACLE_SCRIPT_ENV, oracleScriptArgv } from './reference/oracle-script.js';
export { locateFailToPass } from './reference/locate.js';
export { builtinProfilesDir, installedVersion, splitProfileSpec } from './external/index.js';
export { createLanguageModel } from './builtin/model.js';
