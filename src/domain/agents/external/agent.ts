import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { failureLine } from '../../../core/format/index.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../../core/errors.js';
import type { Agent, AgentPrepareEnv } from '../agent.js';
import { createExecutor } from '../../../infra/sandbox/index.js';
import type { ExecResult } from '../../../infra/sandbox/index.js';
import { PROVIDERS, type ModelSpec, type ProviderName } from '../models/providers.js';
import { profileHash, resolveProgram, type ResolvedProgram } from './install.js';
import { versionArgv } from './invocation.js';
import type { AgentPlatform, AgentProfile, AgentProtocolKind } from './profile.js';
import type { AgentInfo } from '../../../core/types/index.js';

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
 * gateway session per attempt, exactly as for the built-in agent. `platform` (from
 * `NAME@bedrock`, the profile already switched by onPlatform) makes that provider the platform's.
 */
export function createExternalAgent(profile: AgentProfile, model: string | undefined, spec: string, platform?: AgentPlatform): Agent {
  const modelId = model ?? profile.model;
  if (modelId === undefined || modelId === '') {
    throw new InputError(`--agent ${spec}: profile ${profile.name} names no model (fix: --agent ${profile.name}:<model>, or set model: in ${profile.source})`);
  }
  // On a platform the gateway upstream is the platform's (`bedrock`, …): its credentials, its metering.
  const provider = platform ?? PROVIDER_OF[profile.protocol.kind];
  if (!(provider in PROVIDERS)) {
    throw new InputError(`--agent ${spec}: protocol ${profile.protocol.kind} is not metered by this gateway yet (fix: use a profile with another protocol)`);
  }
  const modelSpec: ModelSpec = { spec, provider: provider as ProviderName, modelId };
  let program: ResolvedProgram | undefined;
  return {
    name: spec,
    modelSpec,
    turnsAtGateway: true,
    ...(profile.otherModels === 'serve' ? { otherModels: 'serve' as const } : {}),
    async prepare(env) {
      const cacheDir = process.env.CRUCIBLE_AGENT_CACHE || join(env.stateDir, 'agents');
      program = await resolveProgram(profile, { cacheDir, install: true, ...(env.onProgress ? { onProgress: env.onProgress } : {}) });
      const info: AgentInfo = {
        profile: profile.name,
        profileHash: profileHash(profile),
        model: modelId,
        ...(profile.package !== undefined ? { package: profile.package } : {}),
      };
      const version = await programVersion(profile, program, env);
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
 * The first line `version_command` prints, run once in the run's sandbox with no network, a
 * throwaway HOME (agents write config on any start) and nothing of the host's environment: the
 * program is untrusted code like the agent it is. A version command that fails is the profile's
 * problem, said before any attempt.
 */
async function programVersion(profile: AgentProfile, program: ResolvedProgram, env: AgentPrepareEnv): Promise<string | undefined> {
  const argv = versionArgv(profile, program.argv0);
  if (!argv) return undefined;
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-version-'));
  const [home, tmp] = [join(scratch, 'home'), join(scratch, 'tmp')];
  let ran: ExecResult;
  try {
    await Promise.all([mkdir(home), mkdir(tmp)]);
    const executor = createExecutor(env.sandbox, { writable: [home], hidden: [env.stateDir], readOnly: program.readOnly, home, tmp });
    ran = await executor
      .exec({
        argv,
        cwd: home,
        env: { CI: 'true', NO_COLOR: '1' },
        network: 'none',
        timeoutMs: VERSION_TIMEOUT_MS,
        maxOutputBytes: 64 * 1024,
        ...(env.signal ? { signal: env.signal } : {}),
      })
      .finally(() => executor.close());
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  // Killed because the user stopped the run: that says nothing about the profile.
  env.signal?.throwIfAborted();
  if (ran.exitCode !== 0) {
    const why = ran.timedOut ? `no answer within ${VERSION_TIMEOUT_MS / 1000} s` : `exit ${ran.exitCode ?? ran.signal}`;
    // The line that says why (an `Error:` above a stack), not merely the last one.
    const tail = failureLine(ran.stderr);
    throw new InputError(
      `agent ${profile.name}: version_command ${argv.join(' ')} failed (${why}${tail ? `: ${tail}` : ''}) (fix: correct version_command in ${profile.source})`,
    );
  }
  return ran.stdout
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
}
