import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../errors.js';
import type { Agent } from '../agent.js';
import { PROVIDERS, type ModelSpec, type ProviderName } from '../models/providers.js';
import { profileHash, resolveProgram, type ResolvedProgram } from './install.js';
import { versionArgv } from './invocation.js';
import type { AgentProfile, AgentProtocolKind } from './profile.js';
import type { AgentInfo } from '../../types/index.js';

/** The gateway provider each protocol is metered on; its key variable is the one the run needs. */
const PROVIDER_OF: Record<AgentProtocolKind, string> = {
  anthropic: 'anthropic',
  'openai-responses': 'openai',
  'openai-chat': 'openai',
  gemini: 'gemini',
};

/** How long `version_command` may take: it prints a line, it does not work. */
const VERSION_TIMEOUT_MS = 30_000;

/**
 * The Agent for one profile on one model: `spec` is what the user wrote (`claude-code` or
 * `claude-code:claude-sonnet-4-5`), its name in reports and cassette keys; `model` overrides the
 * profile's default model. Its modelSpec makes the engine check the provider's key and open a
 * gateway session per attempt, exactly as for the built-in agent.
 */
export function createExternalAgent(profile: AgentProfile, model: string | undefined, spec: string): Agent {
  const modelId = model ?? profile.model;
  if (modelId === undefined || modelId === '') {
    throw new InputError(`--agent ${spec}: profile ${profile.name} names no model (fix: --agent ${profile.name}:<model>, or set model: in ${profile.source})`);
  }
  const provider = PROVIDER_OF[profile.protocol.kind];
  if (!(provider in PROVIDERS)) {
    throw new InputError(`--agent ${spec}: protocol ${profile.protocol.kind} is not metered by this gateway yet (fix: use a profile with another protocol)`);
  }
  const modelSpec: ModelSpec = { spec, provider: provider as ProviderName, modelId };
  let program: ResolvedProgram | undefined;
  return {
    name: spec,
    modelSpec,
    turnsAtGateway: true,
    async prepare(env) {
      const cacheDir = process.env.CRUCIBLE_AGENT_CACHE || join(env.stateDir, 'agents');
      program = await resolveProgram(profile, { cacheDir, install: true });
      const info: AgentInfo = {
        profile: profile.name,
        profileHash: profileHash(profile),
        model: modelId,
        ...(profile.package !== undefined ? { package: profile.package } : {}),
      };
      const version = programVersion(profile, program);
      if (version !== undefined) info.version = version;
      return { info, readOnly: program.readOnly };
    },
    async run(ctx) {
      if (!program) throw new Error(`agent ${spec}: run before prepare (the engine prepares every agent once per run)`);
      const { runExternalAgent } = await import('./run.js');
      return runExternalAgent({ profile, spec, model: modelId, upstream: provider, program }, ctx);
    },
  };
}

/**
 * The first line `version_command` prints, run once on the host with nothing of the host's
 * environment but PATH, and a throwaway HOME (agents write config on any start). A version
 * command that fails is the profile's problem, said before any attempt.
 */
function programVersion(profile: AgentProfile, program: ResolvedProgram): string | undefined {
  const argv = versionArgv(profile, program.argv0);
  if (!argv) return undefined;
  const [command, ...args] = argv as [string, ...string[]];
  const home = mkdtempSync(join(tmpdir(), 'crucible-version-'));
  let ran: SpawnSyncReturns<string>;
  try {
    ran = spawnSync(command, args, {
      encoding: 'utf8',
      timeout: VERSION_TIMEOUT_MS,
      cwd: home,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home, LANG: 'C.UTF-8', CI: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1024 * 1024,
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  if (ran.error !== undefined || ran.status !== 0) {
    const why = ran.error?.message ?? `exit ${ran.status ?? ran.signal}`;
    throw new InputError(`agent ${profile.name}: version_command ${argv.join(' ')} failed (${why}) (fix: correct version_command in ${profile.source})`);
  }
  const line = `${ran.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  return line;
}
