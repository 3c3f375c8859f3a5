import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { InputError, StateDirError, type StateDirFault } from '../core/errors.js';
import { fileSystemFull } from './disk-full.js';
import { attemptDir, hasPlan, runFile } from '../domain/run-dir/index.js';
import type { AttemptResult } from '../core/types/index.js';

/** Where a run keeps its files, for naming them in a message and telling the user what to do. */
export interface StateDirContext {
  stateDir: string;
  runDir?: string;
  /** Known once the run directory exists; the fix then names the resume command. */
  runId?: string;
}

/**
 * Errno codes of the harness's own calls (Node's fs, SQLite), and what each says about the state
 * directory. Only codes: the words a tool or an agent prints are never evidence, since they can
 * quote any file name the agent chose ("No space left on device.txt"). A tool that reports a full
 * disk only in its output (git, cp, a shell) is believed when statfs agrees (fileSystemFull).
 */
const CODE_FAULTS: Readonly<Record<string, StateDirFault>> = {
  ENOSPC: 'no_space',
  EDQUOT: 'no_space',
  SQLITE_FULL: 'no_space',
  EROFS: 'read_only',
  SQLITE_READONLY: 'read_only',
  EACCES: 'no_permission',
  EPERM: 'no_permission',
};

/**
 * The state-directory fault behind `error`, or undefined when it is something else. A full disk
 * counts wherever it happened (it stops every attempt alike); permission errors and vanished
 * files count only inside the state directory, where Crucible alone writes.
 */
export function stateDirFaultOf(error: unknown, ctx: StateDirContext): StateDirError | undefined {
  if (error instanceof StateDirError) return error;
  if (error instanceof InputError) return undefined;
  const code = errnoField(error, 'code');
  const path = errnoField(error, 'path') ?? errnoField(error, 'dest');
  const inState = path !== undefined && isInside(ctx.stateDir, path);
  let fault = code !== undefined ? CODE_FAULTS[code] : undefined;
  if (fault === 'no_permission' && !inState) fault = undefined;
  // EROFS about another path is the sandbox's read-only system, not the state directory.
  if (fault === 'read_only' && !inState && probe(ctx.runDir ?? ctx.stateDir) !== 'read_only') fault = undefined;
  if (fault === undefined && fileSystemFull(ctx.runDir ?? ctx.stateDir)) fault = 'no_space';
  if (fault === undefined && code === 'ENOENT' && inState && path !== undefined) fault = probe(path) ?? (vanished(ctx, path) ? 'vanished' : undefined);
  if (fault === undefined) return undefined;
  return new StateDirError(fault, describeFault(fault, path ?? ctx.runDir ?? ctx.stateDir, ctx));
}

/**
 * The fault behind an attempt that ended as a harness error, from the harness's own look at the
 * state directory, never from the attempt's message: a full disk when statfs said so as the error
 * happened (`harnessError.stateDiskFull`, recorded before the attempt's cleanup freed space) or
 * says so now; a read-only state directory when the harness's own write probe fails with EROFS;
 * a run directory that disappeared. Anything else stays that one attempt's harness error, and the
 * run goes on.
 */
export function attemptFaultOf(result: AttemptResult, ctx: StateDirContext & { runDir: string }): StateDirError | undefined {
  if (result.verdict !== 'ERROR' || result.cause !== 'harness_error') return undefined;
  const where = resolve(attemptDir(ctx.runDir, result.attemptId));
  const full = result.harnessError?.stateDiskFull === true || fileSystemFull(ctx.runDir);
  const fault: StateDirFault | undefined = full ? 'no_space' : probe(ctx.runDir) === 'read_only' ? 'read_only' : vanished(ctx, where) ? 'vanished' : undefined;
  return fault === undefined ? undefined : new StateDirError(fault, describeFault(fault, where, ctx));
}

function describeFault(fault: StateDirFault, path: string, ctx: StateDirContext): string {
  const where = shown(path);
  const state = shown(ctx.stateDir);
  switch (fault) {
    case 'no_space': {
      const resumable = ctx.runId !== undefined && ctx.runDir !== undefined && hasPlan(ctx.runDir);
      const then = resumable ? `\`crucible resume ${ctx.runId} --retry-errors\`` : 'run again';
      return `no space left on device writing ${where} (fix: free space on the disk of ${state}, then ${then})`;
    }
    case 'read_only':
      return `the state directory ${state} is on a read-only file system (writing ${where}) (fix: pass --out with a writable directory, or mount it read-write)`;
    case 'no_permission':
      return `no permission to write ${where} in the state directory ${state} (fix: make ${state} writable for this user, or pass --out with another directory)`;
    case 'vanished':
      return `the state directory ${state} disappeared while the run was working in it (${where} is gone) (fix: leave it in place while a run works, then start the run again)`;
  }
}

/** The state directory, or the run directory `path` lies in, is gone: deleted or unmounted under the run. */
function vanished(ctx: StateDirContext, path: string): boolean {
  if (!existsSync(ctx.stateDir)) return true;
  return ctx.runDir !== undefined && isInside(ctx.runDir, path) && !existsSync(ctx.runDir);
}

/**
 * Why the nearest existing directory above `path` cannot be written, if it cannot. Node's
 * recursive mkdir reports ENOENT for the missing leaf even when the real cause is a read-only
 * parent, and access(W_OK) answers EROFS on a read-only mount even for root.
 */
function probe(path: string): StateDirFault | undefined {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (error) {
    const code = errnoField(error, 'code');
    return code !== undefined ? CODE_FAULTS[code] : undefined;
  }
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** Relative to the working directory when under it (`.crucible/runs/…`), absolute otherwise. */
function shown(path: string): string {
  const rel = relative(process.cwd(), resolve(path));
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? resolve(path) : rel;
}

function errnoField(error: unknown, field: 'code' | 'path' | 'dest'): string | undefined {
  if (typeof error !== 'object' || error === null || !(field in error)) return undefined;
  const value = (error as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Watches a run for a state-directory fault: the first one stops new attempts from starting (a
 * full disk would fail every remaining attempt one by one) and is what the run ends with.
 */
export class StateFaultWatch {
  private first: StateDirError | undefined;

  constructor(private readonly ctx: StateDirContext & { runDir: string }) {}

  /**
   * A recorded attempt: a harness error caused by the state directory stops the run, and so does
   * a run directory that lost its plan.json (deleted under the run, then half recreated by the
   * attempts' own mkdir -p), which no resume could use.
   */
  noteAttempt(result: AttemptResult): void {
    const where = runFile(this.ctx.runDir, 'plan');
    this.first ??=
      attemptFaultOf(result, this.ctx) ?? (hasPlan(this.ctx.runDir) ? undefined : new StateDirError('vanished', describeFault('vanished', where, this.ctx)));
  }

  /** An attempt that could not be checkpointed. */
  noteRecordFailure(error: unknown): void {
    this.first ??= stateDirFaultOf(error, this.ctx);
  }

  readonly halted = (): boolean => this.first !== undefined;

  /** Throws the first fault seen, if any. */
  check(): void {
    if (this.first !== undefined) throw this.first;
  }
}

/** Runs `work` and turns a filesystem error of the state directory into a one-line StateDirError. */
export async function withStateDirFaults<T>(ctx: StateDirContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw stateDirFaultOf(error, ctx) ?? error;
  }
}
