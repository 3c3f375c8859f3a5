import { lstat, readdir } from 'node:fs/promises';

export interface ScanLimits {
  maxFiles: number;
  maxBytes: number;
}

export interface WorkspaceScan {
  /** Entries seen (files, symlinks, directories, anything), up to maxFiles + 1. */
  files: number;
  /** Disk use (allocated blocks), so a sparse file counts for what it really takes. */
  bytes: number;
  /**
   * Workspace-relative paths of `.git` entries below the top level: nested repositories. As bytes:
   * a name need not be UTF-8, and a decoded one would name nothing on disk.
   */
  nestedGit: Buffer[];
  /** Set when a limit was passed; the scan stopped there, so the counts are lower bounds. */
  exceeded?: 'workspace_files' | 'workspace_disk';
  /**
   * Set (with `exceeded: 'workspace_files'`) when a path is longer than the system allows
   * (ENAMETOOLONG): what lies below it cannot be counted, so it would hide any number of files and
   * bytes from both limits. No real repository needs such a path.
   */
  tooDeep?: true;
}

/** How the workspace limits read in a message, naming the limit's field. */
export function describeScanLimit(scan: WorkspaceScan, limits: ScanLimits): string {
  if (scan.tooDeep) return 'a path longer than the system allows (PATH_MAX), below which nothing can be measured (limits.workspace_files)';
  return scan.exceeded === 'workspace_disk'
    ? `more than ${limits.maxBytes} bytes (limits.workspace_disk)`
    : `more than ${limits.maxFiles} files (limits.workspace_files)`;
}

const SLASH = Buffer.from('/');
const DOT_GIT = Buffer.from('.git');

/**
 * Measures a tree without following symlinks, stopping as soon as a limit is passed, so that a
 * workspace of millions of files costs no more than the limit to judge. Names are read as bytes:
 * decoded as UTF-8, a name that is not would turn into one that does not exist, and whatever lies
 * under it would go unmeasured.
 */
export async function scanWorkspace(root: string, limits: ScanLimits): Promise<WorkspaceScan> {
  const scan: WorkspaceScan = { files: 0, bytes: 0, nestedGit: [] };
  const base = Buffer.from(root);
  const tooDeep = (): void => {
    scan.exceeded = 'workspace_files';
    scan.tooDeep = true;
  };
  const visit = async (rel: Buffer | undefined): Promise<void> => {
    let entries;
    try {
      entries = await readdir(rel ? Buffer.concat([base, SLASH, rel]) : base, { withFileTypes: true, encoding: 'buffer' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENAMETOOLONG') tooDeep();
      return;
    }
    for (const entry of entries) {
      if (scan.exceeded) return;
      const name = entry.name;
      const path = rel ? Buffer.concat([rel, SLASH, name]) : name;
      if (++scan.files > limits.maxFiles) {
        scan.exceeded = 'workspace_files';
        return;
      }
      // The workspace's own .git is the agent's repository, not part of the repo: measured only.
      if (rel && name.equals(DOT_GIT) && !firstName(rel).equals(DOT_GIT)) scan.nestedGit.push(path);
      const info = await lstat(Buffer.concat([base, SLASH, path])).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENAMETOOLONG') tooDeep();
        return undefined;
      });
      if (scan.exceeded) return;
      if (info) scan.bytes += info.blocks * 512;
      if (scan.bytes > limits.maxBytes) {
        scan.exceeded = 'workspace_disk';
        return;
      }
      if (entry.isDirectory()) await visit(path);
    }
  };
  await visit(undefined);
  return scan;
}

function firstName(path: Buffer): Buffer {
  const slash = path.indexOf(SLASH);
  return slash === -1 ? path : path.subarray(0, slash);
}

/** How often a watched tree is measured. */
const WATCH_INTERVAL_MS = 2_000;

export interface TreeWatch {
  /** The first limit a tree went past, with a message naming the tree and the limit; undefined while none has. */
  exceeded(): { limit: NonNullable<WorkspaceScan['exceeded']>; message: string } | undefined;
  stop(): void;
}

/**
 * Measures host directories a sandboxed process can fill (the workspace, its HOME) every 2 s, each
 * against the same limits, and calls `onExceeded` once, the first time one goes past them, so that
 * a runaway process cannot fill the host's disk before it is judged.
 */
export function watchTrees(trees: ReadonlyArray<{ root: string; label: string }>, limits: ScanLimits, onExceeded: () => void): TreeWatch {
  let found: ReturnType<TreeWatch['exceeded']>;
  let busy = false;
  const measure = async (): Promise<void> => {
    for (const { root, label } of trees) {
      const scan = await scanWorkspace(root, limits);
      if (scan.exceeded && found === undefined) {
        found = { limit: scan.exceeded, message: `${label} grew to ${describeScanLimit(scan, limits)}` };
        clearInterval(timer);
        onExceeded();
        return;
      }
    }
  };
  const timer = setInterval(() => {
    if (busy || found) return;
    busy = true;
    void measure().finally(() => {
      busy = false;
    });
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return { exceeded: () => found, stop: () => clearInterval(timer) };
}
