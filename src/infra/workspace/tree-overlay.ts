import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { overlayMountArgv, overlayPathsMountable, type TreeOverlay } from '../sandbox/index.js';
import type { Baseline } from './baseline.js';
import { git } from './git.js';
import { removeTree } from './remove-tree.js';

const execFileAsync = promisify(execFile);

/**
 * A tree given as an overlay of the pristine tree instead of a copy: `upper` starts with the
 * change of `tree` against the baseline written into it (files checked out by git, deletions as
 * overlayfs whiteouts), so the merged view is what a copy with `tree` checked out would hold, and
 * the pristine tree, the lower layer, is never written by anyone.
 */
export interface OverlayTreeInput {
  pristine: string;
  /** Where the tree appears inside the sandbox: emptied here, the overlay's mount point. */
  dest: string;
  /** A directory of the harness's, outside `dest`, for the overlay's upper and work directories. */
  scratch: string;
  baseline: Baseline;
  tree: string;
}

/** An error of the change itself: it cannot be laid over the pristine tree (git's checkout would refuse it too). */
export class OverlayConflictError extends Error {
  constructor(path: string, why: string) {
    super(`${path}: ${why}`);
    this.name = 'OverlayConflictError';
  }
}

/** Builds the overlay's layers for `tree`; the sandbox mounts them (layout.overlay). */
export async function overlayTree(input: OverlayTreeInput): Promise<TreeOverlay> {
  const overlay: TreeOverlay = {
    driver: 'kernel-overlay',
    lower: input.pristine,
    upper: join(input.scratch, 'upper'),
    work: join(input.scratch, 'work'),
    target: input.dest,
  };
  await Promise.all([removeTree(input.dest), removeTree(input.scratch)]);
  await Promise.all([overlay.target, overlay.upper, overlay.work].map((d) => mkdir(d, { recursive: true })));
  if (input.tree !== input.baseline.tree) await writeChange(input.baseline, input.tree, overlay);
  return overlay;
}

/** Removes what a run left in the overlay's layers: its upper directory is all it wrote. */
export async function removeOverlayScratch(scratch: string): Promise<void> {
  await removeTree(scratch);
}

interface Changed {
  /** Added by the change: nothing the baseline tracks is at these paths. */
  added: string[];
  /** Added or changed (content, mode or type): what git writes into the upper directory. */
  written: string[];
  deleted: string[];
}

async function writeChange(baseline: Baseline, tree: string, overlay: TreeOverlay): Promise<void> {
  const changed = await changedPaths(baseline, tree);
  await refuseConflicts(overlay.lower, changed);
  if (changed.written.length > 0) {
    const indexFile = join(dirname(overlay.upper), 'tree.index');
    try {
      const target = { gitDir: baseline.store, workTree: overlay.upper, indexFile };
      await git(target, ['read-tree', tree]);
      // Git writes each file as a checkout would (mode, symlinks as symlinks, leading directories),
      // never through a symlink in a leading path.
      await git(target, ['checkout-index', '-z', '--stdin'], { stdin: `${changed.written.join('\0')}\0` });
    } finally {
      await rm(indexFile, { force: true });
    }
  }
  await whiteOut(overlay.upper, await emptiedDirs(overlay.lower, changed));
}

/**
 * The deleted paths to white out, with a directory the change empties (git's checkout removes
 * it) whited out whole in place of its files. One that still holds anything git does not track
 * stays, as it does after a checkout.
 */
async function emptiedDirs(lower: string, changed: Changed): Promise<string[]> {
  const deleted = new Set(changed.deleted);
  const kept = new Set(changed.written.flatMap(parents));
  const candidates = [...new Set(changed.deleted.flatMap(parents))].filter((d) => !kept.has(d)).sort((a, b) => a.length - b.length);
  const gone: string[] = [];
  for (const dir of candidates) {
    if (gone.some((g) => dir.startsWith(`${g}/`))) continue;
    if (await onlyDeleted(lower, dir, deleted)) gone.push(dir);
  }
  const under = (path: string): boolean => gone.some((g) => path.startsWith(`${g}/`));
  return [...gone, ...changed.deleted.filter((p) => !under(p))];
}

/** Whether everything in `lower/dir` but directories is among the deleted paths. */
async function onlyDeleted(lower: string, dir: string, deleted: ReadonlySet<string>): Promise<boolean> {
  const entries = await readdir(join(lower, dir), { withFileTypes: true }).catch(() => undefined);
  if (!entries) return false;
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory() ? !(await onlyDeleted(lower, path, deleted)) : !deleted.has(path)) return false;
  }
  return true;
}

/** Paths `tree` adds, changes and deletes against the baseline's tree. */
async function changedPaths(baseline: Baseline, tree: string): Promise<Changed> {
  const out = await git({ gitDir: baseline.store }, ['diff-tree', '-r', '-z', '--no-renames', baseline.tree, tree]);
  const fields = out.split('\0');
  const changed: Changed = { added: [], written: [], deleted: [] };
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i]?.trim().split(' ').pop() ?? '';
    const path = fields[i + 1] ?? '';
    if (status === 'D') changed.deleted.push(path);
    else changed.written.push(path);
    if (status === 'A') changed.added.push(path);
  }
  return changed;
}

/**
 * What git's checkout refuses, refused here too: a file the change adds where the pristine tree
 * has something git does not track (ignored build output, say), or one under such a
 * non-directory. The overlay would otherwise just cover it.
 */
async function refuseConflicts(lower: string, changed: Changed): Promise<void> {
  const deleted = new Set(changed.deleted);
  const emptied = new Set(changed.deleted.flatMap(parents));
  const checked = new Set<string>();
  for (const path of changed.written) {
    for (const dir of parents(path)) {
      if (checked.has(dir)) continue;
      checked.add(dir);
      const info = await lstat(join(lower, dir)).catch(() => undefined);
      if (info && !info.isDirectory() && !deleted.has(dir))
        throw new OverlayConflictError(dir, 'an untracked file of the pristine tree is in the way of the change');
    }
  }
  for (const path of changed.added) {
    const info = await lstat(join(lower, path)).catch(() => undefined);
    if (info && !emptied.has(path)) throw new OverlayConflictError(path, 'untracked working tree file would be overwritten by the change');
  }
}

function parents(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * Overlayfs's whiteouts (character devices 0/0, which an unprivileged process may make since
 * Linux 5.8) for the deleted paths; none under a path the change made a non-directory, which
 * already covers everything below it.
 */
async function whiteOut(upper: string, deleted: readonly string[]): Promise<void> {
  const marks: string[] = [];
  for (const path of deleted) {
    if (await coveredInUpper(upper, path)) continue;
    await mkdir(join(upper, dirname(path)), { recursive: true });
    marks.push(join(upper, path));
  }
  for (let i = 0; i < marks.length; i += 500) {
    await execFileAsync('/bin/sh', ['-c', 'for p; do mknod "$p" c 0 0 || exit 1; done', 'whiteout', ...marks.slice(i, i + 500)]);
  }
}

async function coveredInUpper(upper: string, path: string): Promise<boolean> {
  for (const dir of [...parents(path), path]) {
    const info = await lstat(join(upper, dir)).catch(() => undefined);
    if (info && !info.isDirectory()) return true;
  }
  return false;
}

const support = new Map<number, Promise<boolean>>();

/**
 * Whether overlays work for trees kept where `dir` is: kernel overlayfs mounted in an unprivileged
 * user namespace, with an upper directory on that filesystem (some, an overlay itself among them,
 * cannot hold one). Tried once per filesystem and process, for real: a file written through the
 * mount lands in the upper directory, a deletion becomes a whiteout, the lower one stays as it was.
 */
export function overlaySupported(dir: string): Promise<boolean> {
  return stat(dir).then(
    (info) => {
      const known = support.get(info.dev);
      if (known) return known;
      const probe = probeOverlay(dir).catch(() => false);
      support.set(info.dev, probe);
      return probe;
    },
    () => false,
  );
}

async function probeOverlay(dir: string): Promise<boolean> {
  const root = await mkdtemp(join(dir, '.overlay-probe-'));
  try {
    const overlay: TreeOverlay = { driver: 'kernel-overlay', lower: join(root, 'l'), upper: join(root, 'u'), work: join(root, 'w'), target: join(root, 't') };
    if (!overlayPathsMountable(overlay)) return false;
    await Promise.all([overlay.lower, overlay.upper, overlay.work, overlay.target].map((d) => mkdir(d)));
    await writeFile(join(overlay.lower, 'gone'), 'lower');
    const [command = 'unshare', ...args] = overlayMountArgv(overlay);
    try {
      await execFileAsync(command, [...args, '/bin/sh', '-c', 'cd "$1" && echo upper > made && rm gone', 'probe', overlay.target]);
    } catch {
      return false;
    }
    const [made, gone, kept] = await Promise.all([
      readFile(join(overlay.upper, 'made'), 'utf8').catch(() => ''),
      lstat(join(overlay.upper, 'gone')).catch(() => undefined),
      readFile(join(overlay.lower, 'gone'), 'utf8').catch(() => ''),
    ]);
    return made === 'upper\n' && gone?.isCharacterDevice() === true && gone.rdev === 0 && kept === 'lower';
  } finally {
    await removeTree(root);
  }
}
