/**
 * External (CLI) agents' public entry for the rest of Crucible: the profile shape, its schema and
 * loading (config reads a task set's `agents:` through these) and installs into the agent cache.
 * The Agent a profile becomes (agent.ts) is reached through agents/registry.ts; run-time internals
 * (invocation, output parsers, the trajectory) stay inside this folder. Nothing here loads the
 * sandbox, so config stays light.
 */
export {
  AGENT_PLATFORMS,
  COMMAND_PLACEHOLDERS,
  TEXT_PLACEHOLDERS,
  type AgentOutputFormat,
  type AgentPlatform,
  type AgentProfile,
  type AgentProtocol,
  type AgentProtocolKind,
  type PlatformSwitch,
} from './profile.js';
export { agentsFileSchema, profileSchema } from './profile-schema.js';
export { onPlatform, splitProfileSpec, type ProfileSpec } from './platform.js';
export {
  builtinProfilesDir,
  loadAgentsFile,
  loadBuiltinProfiles,
  mergeProfiles,
  parseProfiles,
  profileRules,
  type LoadedProfile,
  type ProfileCatalog,
} from './profile-load.js';
export { agentCacheDir, installedVersion, profileHash, resolveProgram, type ResolvedProgram, type ResolveProgramOptions } from './install.js';
