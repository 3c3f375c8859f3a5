import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { COMMAND_PLACEHOLDERS, TEXT_PLACEHOLDERS, type AgentProfile } from './profile.js';

/**
 * How one attempt runs a profile's program: argv with the whole-item placeholders filled, the
 * environment, stdin and the files written into its private HOME. Pure: the caller writes the
 * files and runs the command. Host values of the `env` names are read here and go only into the
 * child's environment, never into anything written down.
 */
export interface InvocationInput {
  profile: AgentProfile;
  /** The program that replaces `command[0]`. */
  argv0: string;
  model: string;
  instruction: string;
  workspace: string;
  home: string;
  /** A file holding the instruction, readable inside the sandbox. */
  taskFile: string;
  /** This attempt's gateway base URL for the profile's protocol, as the agent reaches it. */
  baseUrl: string;
  /** The per-attempt dummy key. */
  apiKey: string;
  hostEnv: Readonly<Record<string, string | undefined>>;
}

export interface Invocation {
  argv: string[];
  env: Record<string, string>;
  stdin?: string;
  /** Absolute path inside HOME → content. */
  homeFiles: Array<{ path: string; content: string }>;
}

export function buildInvocation(input: InvocationInput): Invocation {
  const { profile } = input;
  const whole: Record<(typeof COMMAND_PLACEHOLDERS)[number], string> = {
    '{task_prompt}': input.instruction,
    '{task_file}': input.taskFile,
    '{repo_dir}': input.workspace,
    '{model}': input.model,
  };
  const args = profile.command.slice(1).map((item) => (item in whole ? whole[item as keyof typeof whole] : item));
  const text = textExpander(input);

  const env: Record<string, string> = {};
  for (const name of profile.env) {
    const value = input.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(profile.setEnv)) env[name] = text(value);
  // Last, so neither a passed-through variable nor a fixed one can point the agent past the gateway
  // or hand it a real key.
  for (const name of profile.protocol.baseUrlEnv) env[name] = input.baseUrl;
  for (const name of profile.protocol.apiKeyEnv) env[name] = input.apiKey;

  const homeFiles = Object.entries(profile.homeFiles).map(([path, content]) => ({ path: insideHome(input.home, path, profile), content: text(content) }));
  return { argv: [input.argv0, ...args], env, ...(profile.stdin === 'prompt' ? { stdin: input.instruction } : {}), homeFiles };
}

/** Replaces every TEXT_PLACEHOLDERS occurrence in a set_env value or home_files content. */
function textExpander(input: InvocationInput): (text: string) => string {
  const values: Record<(typeof TEXT_PLACEHOLDERS)[number], string> = {
    '{model}': input.model,
    '{base_url}': input.baseUrl,
    '{api_key}': input.apiKey,
    '{repo_dir}': input.workspace,
    '{home}': input.home,
  };
  const pattern = new RegExp(TEXT_PLACEHOLDERS.map((p) => p.replace(/[{}]/g, '\\$&')).join('|'), 'g');
  return (text) => text.replace(pattern, (match) => values[match as keyof typeof values]);
}

function insideHome(home: string, path: string, profile: AgentProfile): string {
  const target = resolve(home, normalize(path));
  if (isAbsolute(path) || !target.startsWith(home + sep)) {
    throw new Error(`agent ${profile.name}: home_files path ${path} is not inside HOME (${profile.source})`);
  }
  return target;
}

/**
 * The version command's argv: its first item resolves like `command[0]` does, to the same program
 * when it names it, else to a program of that name beside it (another bin of the same package).
 */
export function versionArgv(profile: AgentProfile, argv0: string): string[] | undefined {
  const [first, ...rest] = profile.versionCommand ?? [];
  if (first === undefined) return undefined;
  const same = first === profile.command[0] || basename(first) === basename(profile.command[0] ?? '') || profile.commandPath !== undefined;
  return [same ? argv0 : join(dirname(argv0), basename(first)), ...rest];
}
