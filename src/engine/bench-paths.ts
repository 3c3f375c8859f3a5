/**
 * Where a bench keeps its trees, all inside one directory (an attempt's, a preflight's, a ci
 * evaluation's scratch directory): the workspace path every tree is built at, the pristine tree
 * test runs copy, the results directory and the test runs' HOME and /tmp.
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTree } from '../infra/workspace/index.js';

export interface BenchPaths {
  /** The directory everything of the bench lives in (an attempt's directory). */
  attemptDir: string;
  /** Where the agent works, and where every test run's fresh copy is built: one path for all. */
  workspace: string;
  /** The post-setup tree as the baseline committed it; copied from, and moved into place for the last test run unless `pristineShared`. */
  pristine: string;
  /**
   * `pristine` is not this bench's own copy but a tree kept for others too (the task's shared
   * tree; the prepared tree itself, set beside while no agent works in it): only ever copied from,
   * never moved or written, and never shown to a sandbox.
   */
  pristineShared?: boolean;
  /** The prepared tree (the agent's workspace once it stopped) while it waits beside the workspace path. */
  agentWorkspace: string;
  /** Outside the workspace, emptied before every test run: where `$CRUCIBLE_JUNIT` points. */
  resultsDir: string;
}

/**
 * A bench's paths in `dir`. With `agent` (an attempt, `crucible tests`' oracle), the prepared tree
 * is worked on in place and the test runs copy a pristine copy of it; without, nothing changes the
 * prepared tree, so the test runs copy it where it waits beside the workspace path (one copy fewer).
 */
export function benchPaths(dir: string, use: { agent: boolean }): BenchPaths {
  const agentWorkspace = join(dir, 'agent-workspace');
  return {
    attemptDir: dir,
    workspace: join(dir, 'workspace'),
    ...(use.agent ? { pristine: join(dir, 'pristine') } : { pristine: agentWorkspace, pristineShared: true }),
    agentWorkspace,
    resultsDir: join(dir, 'results'),
  };
}

/** Runs `work` with the workspace moved aside (a rename keeps every inode and mtime), then puts it back. */
export async function besideWorkspace<T>(paths: BenchPaths, work: () => Promise<T>): Promise<T> {
  await rename(paths.workspace, paths.agentWorkspace);
  try {
    return await work();
  } finally {
    await removeTree(paths.workspace);
    await rename(paths.agentWorkspace, paths.workspace);
  }
}
