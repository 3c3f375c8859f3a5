import pc from 'picocolors';
import { referenceAgentNames } from '../agents/index.js';
import { resolveSandbox } from '../sandbox/index.js';
import type { SandboxKind } from '../sandbox/executor.js';

/**
 * The sandbox for a command's agents. The one fallback rule: when bubblewrap is missing, agents
 * whose every step Crucible wrote (the reference agents: nop, oracle, the misbehaving examples)
 * fall back to the local executor with a warning; a model agent needs the real sandbox, and so
 * does an adversarial validation (`purpose: 'attack'`), which exists to test that sandbox.
 */
export async function chooseSandbox(requested: SandboxKind | undefined, agents: readonly string[], purpose: 'grade' | 'attack' = 'grade'): Promise<SandboxKind> {
  const trusted = purpose === 'grade' && agents.every((a) => referenceAgentNames().includes(a));
  const sandbox = await resolveSandbox(requested, { allowFallback: trusted });
  if (sandbox.warning) process.stderr.write(`${pc.yellow('warning')} ${sandbox.warning}\n`);
  return sandbox.kind;
}
