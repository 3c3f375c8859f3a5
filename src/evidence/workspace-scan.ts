import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface ScanLimits {
  maxFiles: number;
  maxBytes: number;
}

export interface WorkspaceScan {
  /** Entries seen (files, symlinks, directories, anything), up to maxFiles + 1. */
  files: number;
  /** Disk use (allocated blocks), so a sparse file counts for what it really takes. */
  bytes: number;
  /** Workspace-relative paths of `.git` entries below the top level: nested repositories. */
  nestedGit: string[];
  /** Set when a limit was passed; the scan stopped there, so the counts are lower bounds. */
  exceeded?: 'workspace_files' | 'workspace_disk';
}

/**
 * Measures a tree without following symlinks, stopping as soon as a limit is passed, so that a
 * workspace of millions of files costs no more than the limit to judge.
 */
export async function scanWorkspace(root: string, limits: ScanLimits): Promise<WorkspaceScan> {
  const scan: WorkspaceScan = { files: 0, bytes: 0, nestedGit: [] };
  const visit = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(rel ? join(root, rel) : root, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (scan.exceeded) return;
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (++scan.files > limits.maxFiles) {
        scan.exceeded = 'workspace_files';
        return;
      }
      // The workspace's own .git is the agent's repository, not part of the repo: measured only.
      if (entry.name === '.git' && rel !== '' && !path.startsWith('.git/')) scan.nestedGit.push(path);
      const info = await lstat(join(root, path)).catch(() => undefined);
      if (info) scan.bytes += info.blocks * 512;
      if (scan.bytes > limits.maxBytes) {
        scan.exceeded = 'workspace_disk';
        return;
      }
      if (entry.isDirectory()) await visit(path);
    }
  };
  await visit('');
  return scan;
}
