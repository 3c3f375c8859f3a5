/**
 * An agent profile: how to run one command-line coding agent (Claude Code, Codex, any CLI) as a
 * Crucible agent. Profiles come from YAML (`--agents FILE`, a task set's `agents:` section, or the
 * built-in ones under `profiles/` at the package root); the zod schema that reads them lives in
 * profile-schema.ts and yields exactly this shape (snake_case YAML keys become camelCase here).
 */

/** The wire format the agent speaks to its model; decides the gateway upstream it is metered on. */
export type AgentProtocolKind = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini';

/** How the agent's stdout is read for its final message, turns and the commands it ran. */
export type AgentOutputFormat = 'claude-stream-json' | 'codex-json' | 'gemini-json' | 'text';

/** Placeholders allowed as a whole item of `command` (never embedded in a longer string). */
export const COMMAND_PLACEHOLDERS = ['{task_prompt}', '{task_file}', '{repo_dir}', '{model}'] as const;
/** Placeholders allowed anywhere in a `home_files` content or a `set_env` value. */
export const TEXT_PLACEHOLDERS = ['{model}', '{base_url}', '{api_key}', '{repo_dir}', '{home}'] as const;

export interface AgentProtocol {
  kind: AgentProtocolKind;
  /** Variables the agent reads its base URL from; each is set to this attempt's gateway URL. */
  baseUrlEnv: string[];
  /** Variables the agent reads its API key from; each is set to a per-attempt dummy key. */
  apiKeyEnv: string[];
}

/** The cloud platforms an external agent may reach its model through, by the gateway upstream of the same name. */
export const AGENT_PLATFORMS = ['bedrock', 'vertex', 'azure', 'openrouter'] as const;
export type AgentPlatform = (typeof AGENT_PLATFORMS)[number];

/**
 * What changes when the agent runs on a platform (`--agent NAME@bedrock`): the agent's own
 * documented switches for it (Claude Code's CLAUDE_CODE_USE_BEDROCK and its base URL variable,
 * say). Lists replace the profile's when given; maps are merged over the profile's.
 */
export interface PlatformSwitch {
  baseUrlEnv?: string[];
  apiKeyEnv?: string[];
  /** Host variables passed through besides the profile's (a region, never a credential). */
  env: string[];
  setEnv: Record<string, string>;
  homeFiles: Record<string, string>;
  /** The model when `--agent NAME@platform` names none; default the profile's. */
  model?: string;
}

export interface AgentProfile {
  /** `[a-z0-9][a-z0-9-]*`; never a provider name (`openai`, …) nor a reference agent's. */
  name: string;
  /** An npm spec pinned to an exact version (`@openai/codex@0.171.0`), installed under the agent cache. */
  package?: string;
  /**
   * An absolute path (resolved against the profile file's directory) of an agent already installed
   * on the host; it replaces `command[0]`. Exactly one of `package` and `commandPath` is set.
   */
  commandPath?: string;
  /** argv, run without a shell. `command[0]` names the program: a bin of `package`, or replaced by `commandPath`. */
  command: string[];
  /** `prompt` writes the task prompt to the agent's stdin. */
  stdin: 'none' | 'prompt';
  /** Names of host variables passed through as they are. Their values never reach an artifact. */
  env: string[];
  /** Fixed variables; values may use TEXT_PLACEHOLDERS. */
  setEnv: Record<string, string>;
  /** Files written into the agent's private HOME before it starts: path relative to HOME → content (TEXT_PLACEHOLDERS allowed). */
  homeFiles: Record<string, string>;
  /** argv printing the agent's version, run once per run; same program resolution as `command`. */
  versionCommand?: string[];
  /** The model used when `--agent NAME` names none. */
  model?: string;
  /** `serve`: the gateway forwards requests for other models than the attempt's (default: refused). */
  otherModels?: 'serve';
  protocol: AgentProtocol;
  /** The platforms this agent can run on besides its protocol's own provider, with its switches for each. */
  platforms?: Partial<Record<AgentPlatform, PlatformSwitch>>;
  output: AgentOutputFormat;
  /** Where the profile came from: `builtin` or the file it was read from. */
  source: string;
}
