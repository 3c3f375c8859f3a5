import { stat } from 'node:fs/promises';
import { SandboxSetupError } from './errors.js';
import type { ExecRequest, ExecResult, SandboxLayout } from './executor.js';

/**
 * Rejects requests that are the caller's mistake, so they surface as harness errors instead of
 * looking like a command that failed.
 */
export async function assertRunnable(request: ExecRequest): Promise<void> {
  if (request.argv.length === 0) throw new Error('exec: argv is empty');
  if (!Number.isFinite(request.timeoutMs) || request.timeoutMs <= 0) {
    throw new Error(`exec: timeoutMs must be a positive number, got ${request.timeoutMs}`);
  }
  const info = await stat(request.cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw new Error(`exec: cwd is not a directory: ${request.cwd}`);
}

/** What a shell reports for a command it cannot start: 127 when missing, 126 otherwise. */
export function notRunnableResult(command: string, code: string | undefined, durationMs: number): ExecResult {
  const missing = code === 'ENOENT';
  return {
    exitCode: missing ? 127 : 126,
    signal: null,
    stdout: '',
    stderr: `crucible: ${command}: ${missing ? 'command not found' : `cannot execute (${code ?? 'unknown error'})`}\n`,
    truncated: false,
    timedOut: false,
    durationMs,
    // The harness's own spawn got this errno: the evidence callers go by, not the words above.
    notStarted: code ?? 'unknown error',
  };
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return undefined;
}

/** A task environment is an image: only the docker executor can run one, and running it elsewhere would grade the wrong toolchain. */
export function refuseEnvironment(kind: 'local' | 'bwrap', layout: SandboxLayout): void {
  if (layout.environment !== undefined) {
    throw new SandboxSetupError(`the ${kind} executor cannot run a task environment (image ${layout.environment.imageId}); such tasks need --sandbox docker`);
  }
}
