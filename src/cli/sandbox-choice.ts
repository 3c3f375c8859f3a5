import pc from 'picocolors';
import { referenceAgentNames } from '../domain/agents/index.js';
import { resolveSandbox } from '../infra/sandbox/index.js';
import type { SandboxKind } from '../infra/sandbox/index.js';
import type { CliIo } from './io.js';

/**
 * The sandbox for a command's agents, by resolveSandbox (the one rule). What only the CLI knows is
 * who the agents are: the reference agents (nop, oracle, the misbehaving examples) run nothing but
 * Crucible's own steps, so they may fall back; a model agent needs the real sandbox, and so does an
 * adversarial validation (`purpose: 'attack'`), which exists to test that sandbox.
 */
export async function chooseSandbox(
  io: Pick<CliIo, 'stderr'>,
  requested: SandboxKind | undefined,
  agents: readonly string[],
  purpose: 'grade' | 'attack' = 'grade',
  stateDir?: string,
): Promise<SandboxKind> {
  return startSandboxChoice(io, requested, agents, purpose, stateDir)();
}

/**
 * Starts the check now (it runs bwrap, which can overlap loading the task set) and returns the
 * call that awaits it and prints the fallback warning, so the warning never precedes an input error.
 */
export function startSandboxChoice(
  io: Pick<CliIo, 'stderr'>,
  requested: SandboxKind | undefined,
  agents: readonly string[],
  purpose: 'grade' | 'attack' = 'grade',
  /** Crucible's state directory: bwrap's probe is remembered in `<state>/cache/sandbox-probe.json`. */
  stateDir?: string,
): () => Promise<SandboxKind> {
  const trusted = purpose === 'grade' && agents.every((a) => referenceAgentNames().includes(a));
  const check = resolveSandbox(requested, { allowFallback: trusted, ...(stateDir ? { stateDir } : {}) });
  // Keeps an input error thrown before the await from leaving this promise unobserved; the await still throws.
  check.catch(() => undefined);
  return async () => {
    const sandbox = await check;
    if (sandbox.warning) io.stderr.write(`${pc.yellow('warning')} ${sandbox.warning}\n`);
    return sandbox.kind;
  };
}
