/**
 * How an attempt's agent gets its workspace: the one place that chooses. Where the sandbox is
 * bwrap and the kernel mounts overlayfs in an unprivileged user namespace, the workspace is an
 * overlay of the task's prepared tree held for the whole attempt (overlay-holder.ts): nothing is
 * copied, every command of the agent enters the holder's namespace, what the agent writes lands
 * in the attempt's own upper directory, and the prepared tree, the lower layer, is never written.
 * Anywhere else (docker, local, a kernel or filesystem without it, a path mount options cannot
 * carry, the online guard, which reads the workspace from the host as it changes) it is the copy
 * it always was. The choice goes into the attempt's record (`workspace`).
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TreeProvision } from '../core/types/index.js';
import { overlayPathsMountable, sandboxTraits, startOverlayHolder, type SandboxKind, type TreeOverlay } from '../infra/sandbox/index.js';
import { copyTree, overlaySupported, removeTree, type HeldTree } from '../infra/workspace/index.js';

export interface AgentTree {
  readonly provision: TreeProvision;
  /** For the agent's sandbox layout: the overlay its holder keeps mounted at the workspace path. */
  readonly overlay?: TreeOverlay;
  /**
   * How the host reaches the tree at `path` (the workspace, or where it was set aside) while the
   * holder lives; undefined for a copy, which is at `path` itself.
   */
  held(path: string): HeldTree | undefined;
  /** Where the host's own reads of the tree at `path` go (the held tree's `/proc` path, or `path`). */
  hostPath(path: string): string;
  /**
   * Ends the holder and removes the upper directory; nothing for a copy. Safe to call twice.
   * `keepAt` (`--keep-workspace`): the merged tree at that path is copied onto the host's own
   * directory there first, so what the agent left stays to look at, as a copy's does.
   */
  release(keepAt?: string): Promise<void>;
}

/** The agent's overlay's upper and work directories, in the attempt's directory. */
export const AGENT_OVERLAY_DIR = 'agent-overlay';

export const COPIED_TREE: AgentTree = {
  provision: 'copy',
  held: () => undefined,
  hostPath: (path) => path,
  release: async () => {},
};

export interface AgentTreeChoice {
  sandbox: SandboxKind;
  /** False when anything rules the overlay out: a fake executor, the online guard. */
  allowed: boolean;
  /** The prepared tree, never written while the agent works. */
  lower: string;
  workspace: string;
  /** A directory of the attempt's, outside the workspace, for the overlay's upper and work directories. */
  scratch: string;
}

/** Whether the agent's workspace will be an overlay; asked before the prepared tree is copied or moved. */
export async function agentOverlayFits(choice: AgentTreeChoice): Promise<boolean> {
  if (!choice.allowed || !sandboxTraits(choice.sandbox).treeOverlay) return false;
  if (!overlayPathsMountable({ lower: choice.lower, ...layers(choice.scratch), target: choice.workspace })) return false;
  return overlaySupported(dirname(choice.workspace));
}

/** The overlay of `lower` at the workspace path (an empty directory on the host), held until release. */
export async function holdAgentTree(choice: AgentTreeChoice): Promise<AgentTree> {
  const overlay: TreeOverlay = { driver: 'kernel-overlay', lower: choice.lower, ...layers(choice.scratch), target: choice.workspace };
  await removeTree(choice.scratch);
  await Promise.all([overlay.upper, overlay.work, overlay.target].map((d) => mkdir(d, { recursive: true })));
  const holder = await startOverlayHolder(overlay);
  let released: Promise<void> | undefined;
  return {
    provision: 'kernel-overlay',
    overlay: holder.overlay,
    held: (path) => ({ host: holder.view(path), enter: (wd) => holder.enterArgv(wd) }),
    hostPath: (path) => holder.view(path),
    release: (keepAt) =>
      (released ??= (async () => {
        if (keepAt !== undefined) await copyTree(holder.view(keepAt), keepAt);
        await holder.close();
        await removeTree(choice.scratch);
      })()),
  };
}

function layers(scratch: string): Pick<TreeOverlay, 'upper' | 'work'> {
  return { upper: join(scratch, 'upper'), work: join(scratch, 'work') };
}
