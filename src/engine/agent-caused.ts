import { SandboxSetupError, SandboxUnavailableError } from '../infra/sandbox/index.js';
import { fileSystemFull } from './disk-full.js';

/** Errno codes of the harness's own Node calls that no file of the agent's can cause: the machine's. */
const MACHINE_ERRNOS = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'ENOMEM', 'EMFILE', 'ENFILE']);

/**
 * Whether a failure on the agent's files is the machine's, by the harness's own evidence only: an
 * errno its own call got (`err.code`), a sandbox error it raised itself, or statfs finding the
 * state directory's file system full (`stateDir`: where the attempt writes). Never by the words of
 * the error: git quotes the agent's file names in its messages, and a file named
 * "No space left on device.txt" that git cannot read is the agent's doing, not a full disk.
 */
export function isMachineError(error: unknown, stateDir: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && MACHINE_ERRNOS.has(code)) return true;
  if (error instanceof SandboxSetupError || error instanceof SandboxUnavailableError) return true;
  return fileSystemFull(stateDir);
}

/** Work on the agent's own files: a failure the machine did not cause is the agent's doing. */
export async function agentCaused<T>(what: string, stateDir: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isMachineError(error, stateDir)) throw error;
    throw new AgentChangeError(`could not ${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A change that cannot be captured or checked out: the agent's FAIL, never a harness error. */
export class AgentChangeError extends Error {
  override readonly name = 'AgentChangeError';
}
