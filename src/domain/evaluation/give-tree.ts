/**
 * How a test run gets its tree: the one place that chooses. Where the sandbox is bwrap and the
 * kernel mounts overlayfs in an unprivileged user namespace, the tree is an overlay of the
 * pristine tree (src/infra/workspace/tree-overlay.ts): nothing is copied, the change is written
 * into the run's own upper directory, and the pristine tree is the lower layer no process can
 * write. Anywhere else (docker, local, a kernel without it, a path mount options cannot carry) it
 * is the copy it always was. The choice goes into the run's evidence (`tree`).
 */
import { dirname } from 'node:path';
import { overlayPathsMountable, sandboxTraits, type TreeOverlay } from '../../infra/sandbox/index.js';
import { materializeTree, overlaySupported, overlayTree, removeOverlayScratch } from '../../infra/workspace/index.js';
import type { TreeProvision } from '../../core/types/index.js';
import type { TestBench } from './test-run.js';

export interface GivenTree {
  provision: TreeProvision;
  /** For the sandbox layout, when the tree is an overlay. */
  overlay?: TreeOverlay;
  /** Where on the host the run's writes to the tree land: the workspace, or the overlay's upper directory. */
  written: string;
}

/** `tree` at the bench's workspace path, over its pristine tree; `lastUse` lets a copy take the pristine tree itself. */
export async function giveTree(bench: TestBench, tree: string, lastUse: boolean): Promise<GivenTree> {
  const scratch = overlayScratch(bench);
  if (await overlayFits(bench, scratch)) {
    const overlay = await overlayTree({ pristine: bench.pristine, dest: bench.workspace, scratch, baseline: bench.baseline, tree });
    return { provision: 'kernel-overlay', overlay, written: overlay.upper };
  }
  await materializeTree({ pristine: bench.pristine, dest: bench.workspace, baseline: bench.baseline, tree, consume: lastUse && bench.pristineShared !== true });
  return { provision: 'copy', written: bench.workspace };
}

/** After the run: an overlay's upper directory (all the run wrote) goes; a copy stays until the next run replaces it, as before. */
export async function releaseTree(bench: TestBench, given: GivenTree): Promise<void> {
  if (given.overlay) await removeOverlayScratch(overlayScratch(bench));
}

function overlayScratch(bench: TestBench): string {
  return `${bench.workspace}.overlay`;
}

async function overlayFits(bench: TestBench, scratch: string): Promise<boolean> {
  // A fake executor (tests of something else) would not mount it; docker and local cannot.
  if (bench.overlay === false || !sandboxTraits(bench.sandbox).treeOverlay || bench.executorFactory !== undefined) return false;
  if (!overlayPathsMountable({ lower: bench.pristine, upper: `${scratch}/upper`, work: `${scratch}/work`, target: bench.workspace })) return false;
  return overlaySupported(dirname(bench.workspace));
}
