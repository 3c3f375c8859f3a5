/**
 * An attempt's capture phase, once the agent stopped: the writes it made outside the workspace
 * (where the sandbox could not stop them), its workspace measured against the task's limits, and
 * its change captured as a tree in the baseline's store through git, which records symlinks as
 * symlinks. Nothing of the workspace is read otherwise.
 */
import { captureChange, describeScanLimit, finishFsGuard, scanWorkspace, type FsGuard, type FsGuardEvidence } from '../domain/evidence/index.js';
import type { Outcome } from '../domain/grading/index.js';
import type { Task } from '../core/types/index.js';
import type { Bench } from './bench.js';
import { agentCaused } from './agent-caused.js';

export type Captured = { kind: 'captured'; tree: string; outsideWrites: FsGuardEvidence } | Extract<Outcome, { kind: 'over_limit' }>;

/** The agent's change, or the limit its workspace or change is past (then nothing else is judged). */
export async function captureAttempt(task: Task, bench: Bench, fsGuard: FsGuard): Promise<Captured> {
  const { paths, baseline } = bench;
  const limits = task.limits.resources;
  const outsideWrites = await finishFsGuard(fsGuard);
  // An overlay is read where its holder keeps it mounted: through /proc, git entered in there.
  const held = bench.agentTree.held(paths.agentWorkspace);
  const scan = await scanWorkspace(held?.host ?? paths.agentWorkspace, { maxFiles: limits.workspaceFiles, maxBytes: limits.workspaceBytes });
  if (scan.exceeded) {
    const what = describeScanLimit(scan, { maxFiles: limits.workspaceFiles, maxBytes: limits.workspaceBytes });
    return { kind: 'over_limit', limit: scan.exceeded, message: `the agent left the workspace with ${what}` };
  }
  const capture = await agentCaused('capture the change', paths.attemptDir, () =>
    captureChange({
      baseline,
      workTree: paths.agentWorkspace,
      ...(held ? { held } : {}),
      nestedGit: scan.nestedGit,
      maxFiles: limits.changeFiles,
      maxBytes: limits.changeBytes,
    }),
  );
  if (!capture.ok) return { kind: 'over_limit', limit: capture.exceeded, message: capture.detail };
  return { kind: 'captured', tree: capture.tree, outsideWrites };
}
