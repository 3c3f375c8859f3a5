import { resolve } from 'node:path';
import { detectBwrap, type DetectOptions } from './detect.js';
import { SandboxUnavailableError } from './errors.js';
import type { SandboxKind } from './executor.js';

/** Where a run remembers that bwrap works here (probe-cache.ts), under Crucible's state directory. */
export function sandboxProbeFile(stateDir: string): string {
  return resolve(stateDir, 'cache', 'sandbox-probe.json');
}

export interface ResolveOptions extends DetectOptions {
  /**
   * Every command the sandbox will run is Crucible's own (the reference agents) or the checkout's
   * own tests (`ci`, the diagnostics' fixtures): when no sandbox was named and bubblewrap is
   * unusable, they may run unsandboxed, with a warning. Never for a model agent, a patch from
   * elsewhere, an attack or a mined commit.
   */
  allowFallback: boolean;
  /** Who then runs unsandboxed, with its verb, for the warning (default: 'the agent runs'). */
  unsandboxed?: string;
  /** Crucible's state directory: bwrap's probe is remembered there (sandboxProbeFile), unless cacheFile says elsewhere. */
  stateDir?: string;
}

/**
 * The sandbox to use: the one rule every command follows. A sandbox named by `--sandbox` (or by
 * the run being resumed) is that one or none: when it cannot run here, SandboxUnavailableError
 * (one line with the fix, exit 2). Named by nobody: bwrap, and when bwrap is unusable, local only
 * if `allowFallback`, with a warning to show. Docker is never a fallback: whoever wants it names it.
 */
export async function resolveSandbox(requested: SandboxKind | undefined, options: ResolveOptions): Promise<{ kind: SandboxKind; warning?: string }> {
  if (requested === 'local') return { kind: 'local' };
  if (requested === 'docker') {
    // Loaded only when asked for: the engine client costs hundreds of ms to import.
    const { detectDocker } = await import('../docker/index.js');
    const docker = await detectDocker();
    if (docker.ok) return { kind: 'docker' };
    throw new SandboxUnavailableError(docker.reason, docker.fix, 'docker');
  }
  const detection = await detectBwrap(detectOptions(options));
  if (detection.ok) return { kind: 'bwrap' };
  if (requested !== undefined || !options.allowFallback) throw new SandboxUnavailableError(detection.reason, detection.fix);
  return {
    kind: 'local',
    warning:
      `the bubblewrap sandbox is unavailable (${detection.reason}), so ${options.unsandboxed ?? 'the agent runs'} UNSANDBOXED with your ` +
      `user's access to files and network. To sandbox it: ${detection.fix}.`,
  };
}

/** The sandbox a run of fixed content ends up in, and, when it is not bwrap, why each better one was passed over. */
export interface SafestSandbox {
  kind: SandboxKind;
  /** Why bwrap (and then Docker) could not be used, and how to get bwrap; absent when bwrap runs. */
  unavailable?: { reasons: string[]; fix: string };
}

/**
 * The most confining sandbox this machine has, for a run whose every command is Crucible's own
 * (the quick start replays a committed cassette on the examples it ships), which therefore may run
 * without one but should not when one exists: bwrap, else containers when a Docker engine answers,
 * else the host. Anything an untrusted agent drives goes through resolveSandbox, which never
 * falls back to Docker nor, for a model agent, to the host.
 */
export async function resolveSafestSandbox(options: DetectOptions & { stateDir?: string } = {}): Promise<SafestSandbox> {
  const bwrap = await detectBwrap(detectOptions(options));
  if (bwrap.ok) return { kind: 'bwrap' };
  const { detectDocker } = await import('../docker/index.js');
  const docker = await detectDocker();
  if (docker.ok) return { kind: 'docker', unavailable: { reasons: [bwrap.reason], fix: bwrap.fix } };
  return { kind: 'local', unavailable: { reasons: [bwrap.reason, docker.reason], fix: bwrap.fix } };
}

function detectOptions(options: DetectOptions & { stateDir?: string }): DetectOptions {
  const cacheFile = options.cacheFile ?? (options.stateDir !== undefined ? sandboxProbeFile(options.stateDir) : undefined);
  return { ...(options.searchPath !== undefined ? { searchPath: options.searchPath } : {}), ...(cacheFile !== undefined ? { cacheFile } : {}) };
}
