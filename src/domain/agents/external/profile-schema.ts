import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { AGENT_PLATFORMS, COMMAND_PLACEHOLDERS, TEXT_PLACEHOLDERS, type AgentPlatform, type AgentProfile, type PlatformSwitch } from './profile.js';

/**
 * The agent-profile format as users write it (snake_case YAML), and the checks zod cannot express
 * (placeholders, pinning, names other agents own). Every object is strict: a misspelt `set_env`
 * silently ignored would run the agent without its settings.
 */

export const PROFILE_NAME_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envName = z.string().regex(ENV_NAME, 'not a valid environment variable name');
const argv = z.array(z.string().min(1)).min(1);

export const protocolSchema = z.strictObject({
  kind: z.enum(['anthropic', 'openai-responses', 'openai-chat', 'gemini']).describe('The wire format the agent speaks to its model.'),
  base_url_env: z.array(envName).default([]).describe("Variables the agent reads its base URL from; each is set to this attempt's gateway URL."),
  api_key_env: z
    .array(envName)
    .default([])
    .describe('Variables the agent reads its API key from; each is set to a per-attempt dummy key (the real key stays in the gateway).'),
});

export const platformSchema = z.strictObject({
  base_url_env: z
    .array(envName)
    .optional()
    .describe("Replaces protocol.base_url_env on this platform: variables set to the gateway URL of the platform's upstream."),
  api_key_env: z.array(envName).optional().describe('Replaces protocol.api_key_env on this platform: variables set to the per-attempt dummy key.'),
  env: z.array(envName).default([]).describe("Host variables passed through besides the profile's (a region; never a credential)."),
  set_env: z
    .record(envName, z.string())
    .default({})
    .describe(`Fixed variables merged over the profile's: the agent's own switches for the platform; values may use ${TEXT_PLACEHOLDERS.join(', ')}.`),
  home_files: z.record(z.string().min(1), z.string()).default({}).describe("Files merged over the profile's home_files on this platform."),
  model: z.string().min(1).optional().describe("The model on this platform when --agent NAME@platform names none (default: the profile's)."),
});

/** Which platforms carry which protocol: the gateway meters Claude's Messages API on Bedrock and Vertex, OpenAI's APIs on Azure and OpenRouter. */
export const PLATFORMS_OF_PROTOCOL: Record<AgentProfile['protocol']['kind'], readonly AgentPlatform[]> = {
  anthropic: ['bedrock', 'vertex'],
  'openai-responses': ['azure', 'openrouter'],
  'openai-chat': ['azure', 'openrouter'],
  gemini: [],
};

export const profileSchema = z.strictObject({
  name: z
    .string()
    .regex(PROFILE_NAME_PATTERN, 'names use lowercase letters, digits and "-", starting with a letter or digit')
    .describe('What `--agent NAME[:model]` calls it; not a provider name nor a reference agent name.'),
  package: z
    .string()
    .min(1)
    .optional()
    .describe('An npm spec pinned to an exact version (e.g. @openai/codex@0.171.0), installed into the agent cache. Exclusive with command_path.'),
  command_path: z
    .string()
    .min(1)
    .optional()
    .describe('A program already installed on the host (relative to this file, or absolute); replaces command[0]. Exclusive with package.'),
  command: argv.describe(`argv, run without a shell. Whole-item placeholders: ${COMMAND_PLACEHOLDERS.join(', ')}.`),
  stdin: z.enum(['none', 'prompt']).default('none').describe("prompt: the task prompt is written to the agent's stdin."),
  env: z.array(envName).default([]).describe('Host variables passed through by name; their values never reach an artifact.'),
  set_env: z
    .record(envName, z.string())
    .default({})
    .describe(`Fixed variables; values may use ${TEXT_PLACEHOLDERS.join(', ')}.`),
  home_files: z
    .record(z.string().min(1), z.string())
    .default({})
    .describe(`Files written into the agent's private HOME: path relative to HOME → content (${TEXT_PLACEHOLDERS.join(', ')} allowed).`),
  version_command: argv.optional().describe("argv that prints the agent's version; same program resolution as command."),
  model: z.string().min(1).optional().describe('The model used when --agent names none.'),
  other_models: z
    .enum(['refuse', 'serve'])
    .optional()
    .describe(
      "Requests for another model than the attempt's: refuse (default; the gateway answers 400 model_not_allowed) or serve (forwarded, and the model that answered is recorded per request).",
    ),
  protocol: protocolSchema,
  platforms: z
    .partialRecord(z.enum(AGENT_PLATFORMS), platformSchema)
    .default({})
    .describe('Cloud platforms the agent can reach its model through (`--agent NAME@bedrock`), each with the switches the agent documents for it.'),
  output: z
    .enum(['claude-stream-json', 'codex-json', 'gemini-json', 'text'])
    .default('text')
    .describe("How the agent's stdout is read for its final message, turns and commands."),
});

export type ProfileParsed = z.output<typeof profileSchema>;

/** An `--agents FILE`: a list of profiles, like a task set's `agents:` section. */
export const agentsFileSchema = z.strictObject({
  $schema: z.string().optional(),
  agents: z.array(profileSchema).min(1).describe('Agent profiles; each overrides a built-in profile of the same name.'),
});

/** One problem zod cannot see: the field (relative to the profile) and the fix. */
export interface ProfileProblem {
  path: ReadonlyArray<string | number>;
  problem: string;
  fix: string;
}

/** `@scope/name@1.2.3` or `name@1.2.3-beta.1`: one exact version, never a range or a tag. */
const PINNED = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*@\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
/** A local tarball (`npm pack` output), pinned by its content; tests and air-gapped installs use it. */
const TARBALL = /\.(tgz|tar\.gz)$/;
const ANY_PLACEHOLDER = /\{[a-z_]+\}/g;

export interface ProfileRules {
  /** Names no profile may take: provider names, reference agents. */
  reserved: ReadonlySet<string>;
  /** Variables that hold real provider keys; passing one through would hand the agent the key. */
  keyVariables: ReadonlySet<string>;
}

/** Everything wrong with a parsed profile that its shape does not show, first problem first. */
export function profileProblems(p: ProfileParsed, rules: ProfileRules): ProfileProblem[] {
  const out: ProfileProblem[] = [];
  if (rules.reserved.has(p.name)) {
    out.push({ path: ['name'], problem: `"${p.name}" is already an agent or provider name`, fix: 'pick another name, e.g. my-' + p.name });
  }
  if ((p.package === undefined) === (p.command_path === undefined)) {
    const both = p.package !== undefined;
    out.push({
      path: both ? ['command_path'] : [],
      problem: both ? 'package and command_path cannot be used together' : 'needs package or command_path',
      fix: both
        ? 'keep one: package (installed by Crucible) or command_path (already on this machine)'
        : 'add package: <npm-name>@<version>, or command_path: <program>',
    });
  }
  if (p.package !== undefined && !PINNED.test(p.package) && !TARBALL.test(p.package)) {
    out.push({
      path: ['package'],
      problem: `"${p.package}" is not pinned to an exact version`,
      fix: `write one version, e.g. ${p.package.replace(/@[^@/]*$/, '') || p.package}@1.2.3, so every run evaluates the same agent`,
    });
  }
  if (p.package !== undefined && !TARBALL.test(p.package) && (p.command[0] ?? '').includes('/')) {
    out.push({ path: ['command', 0], problem: 'names a path, but a package profile runs one of its bins', fix: 'write the bin name, e.g. codex' });
  }
  checkArgv(p.command, ['command'], COMMAND_PLACEHOLDERS, out);
  if (p.version_command) checkArgv(p.version_command, ['version_command'], [], out);
  for (const [name, value] of Object.entries(p.set_env)) checkText(value, ['set_env', name], out);
  for (const [path, content] of Object.entries(p.home_files)) {
    const bad = isAbsolute(path) || path.split(/[\\/]/).includes('..');
    if (bad)
      out.push({ path: ['home_files', path], problem: 'must stay inside HOME', fix: 'write a path relative to HOME without "..", e.g. .codex/config.toml' });
    checkText(content, ['home_files', path], out);
  }
  const keys = [...rules.keyVariables, ...p.protocol.api_key_env];
  for (const [platform, switches] of Object.entries(p.platforms) as Array<[AgentPlatform, z.output<typeof platformSchema>]>) {
    if (!PLATFORMS_OF_PROTOCOL[p.protocol.kind].includes(platform)) {
      const fits = PLATFORMS_OF_PROTOCOL[p.protocol.kind];
      out.push({
        path: ['platforms', platform],
        problem: `protocol ${p.protocol.kind} is not metered on ${platform}`,
        fix: fits.length > 0 ? `use one of ${fits.join(', ')}` : 'remove it: no platform carries this protocol yet',
      });
    }
    for (const [name, value] of Object.entries(switches.set_env)) checkText(value, ['platforms', platform, 'set_env', name], out);
    for (const [path, content] of Object.entries(switches.home_files)) checkText(content, ['platforms', platform, 'home_files', path], out);
    switches.env.forEach((name, i) => {
      if (keys.includes(name) || (switches.api_key_env ?? []).includes(name)) {
        out.push({
          path: ['platforms', platform, 'env', i],
          problem: `passing ${name} through would give the agent the real key`,
          fix: 'remove it: the gateway holds the credentials',
        });
      }
    });
  }
  p.env.forEach((name, i) => {
    if (keys.includes(name)) {
      out.push({
        path: ['env', i],
        problem: `passing ${name} through would give the agent the real key`,
        fix: 'remove it: list the variable under protocol.api_key_env, where the agent gets a dummy key and the gateway keeps the real one',
      });
    }
  });
  return out;
}

function checkArgv(items: readonly string[], at: Array<string | number>, allowed: readonly string[], out: ProfileProblem[]): void {
  items.forEach((item, i) => {
    const found = item.match(ANY_PLACEHOLDER) ?? [];
    for (const placeholder of found) {
      const whole = item === placeholder;
      if (whole && allowed.includes(placeholder) && i > 0) continue;
      const known = allowed.length > 0 ? `one of ${allowed.join(', ')}` : 'none (this command runs without a task)';
      if (!allowed.includes(placeholder)) {
        out.push({ path: [...at, i], problem: `unknown placeholder ${placeholder}`, fix: `placeholders here are ${known}` });
      } else if (i === 0) {
        out.push({ path: [...at, i], problem: `the program cannot be the placeholder ${placeholder}`, fix: 'name the program first, then the arguments' });
      } else {
        const flag = item.slice(0, item.indexOf(placeholder)).replace(/=$/, '');
        out.push({
          path: [...at, i],
          problem: `${placeholder} is inside "${item}"; a placeholder must be a whole item`,
          fix: `split it into two items: ${JSON.stringify(flag || '--flag')}, ${JSON.stringify(placeholder)}`,
        });
      }
      return;
    }
  });
}

function checkText(text: string, at: Array<string | number>, out: ProfileProblem[]): void {
  const unknown = (text.match(ANY_PLACEHOLDER) ?? []).find((p) => !(TEXT_PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown) out.push({ path: at, problem: `unknown placeholder ${unknown}`, fix: `placeholders here are ${TEXT_PLACEHOLDERS.join(', ')}` });
}

/** The parsed YAML as the AgentProfile contract; paths resolved against the file's directory. */
export function toProfile(p: ProfileParsed, source: string, dir: string): AgentProfile {
  const pkg = p.package !== undefined && TARBALL.test(p.package) ? resolve(dir, p.package) : p.package;
  return {
    name: p.name,
    ...(pkg !== undefined ? { package: pkg } : {}),
    ...(p.command_path !== undefined ? { commandPath: resolve(dir, p.command_path) } : {}),
    command: p.command,
    stdin: p.stdin,
    env: p.env,
    setEnv: p.set_env,
    homeFiles: p.home_files,
    ...(p.version_command ? { versionCommand: p.version_command } : {}),
    ...(p.model !== undefined ? { model: p.model } : {}),
    ...(p.other_models === 'serve' ? { otherModels: 'serve' as const } : {}),
    protocol: { kind: p.protocol.kind, baseUrlEnv: p.protocol.base_url_env, apiKeyEnv: p.protocol.api_key_env },
    ...(Object.keys(p.platforms).length > 0 ? { platforms: toPlatforms(p.platforms) } : {}),
    output: p.output,
    source,
  };
}

function toPlatforms(parsed: ProfileParsed['platforms']): Partial<Record<AgentPlatform, PlatformSwitch>> {
  const out: Partial<Record<AgentPlatform, PlatformSwitch>> = {};
  for (const [platform, p] of Object.entries(parsed) as Array<[AgentPlatform, z.output<typeof platformSchema>]>) {
    out[platform] = {
      ...(p.base_url_env ? { baseUrlEnv: p.base_url_env } : {}),
      ...(p.api_key_env ? { apiKeyEnv: p.api_key_env } : {}),
      env: p.env,
      setEnv: p.set_env,
      homeFiles: p.home_files,
      ...(p.model !== undefined ? { model: p.model } : {}),
    };
  }
  return out;
}

/** True for a package spec that is a local tarball path rather than a registry name@version. */
export function isTarballSpec(spec: string): boolean {
  return TARBALL.test(spec);
}
