/**
 * The agent's change, captured as a git tree in the harness's own object store: every file added,
 * modified, deleted or renamed against the baseline outside ignored paths, nested repositories'
 * files as plain files, symlinks as symlinks. Everything after this reads the tree, never the
 * agent's workspace.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { copyIndex, NESTED_GIT_NAME, git, gitBytes, removeTree, type Baseline, type GitTarget, type HeldTree } from '../../infra/workspace/index.js';

export interface CaptureInput {
  baseline: Baseline;
  /** The agent's workspace, after every process of the agent has ended. */
  workTree: string;
  /** Set when the workspace is an overlay its holder keeps mounted: where the host reaches it, and how git gets in. */
  held?: HeldTree;
  /** Workspace-relative paths of nested `.git` entries, as bytes (from scanWorkspace). */
  nestedGit: readonly Buffer[];
  maxFiles: number;
  maxBytes: number;
}

export type Capture = { ok: true; tree: string; files: number; bytes: number } | { ok: false; exceeded: 'change_files' | 'change_size'; detail: string };

export async function captureChange(input: CaptureInput): Promise<Capture> {
  const { baseline, workTree } = input;
  const host = input.held?.host ?? workTree;
  await removeFifos(host);
  for (const path of input.nestedGit) await neutralizeNestedRepo(host, path);
  const indexFile = join(baseline.store, 'capture.index');
  await copyIndex(baseline, indexFile);
  const target: GitTarget = { gitDir: baseline.store, workTree, indexFile, ...(input.held ? { enter: input.held.enter } : {}) };
  try {
    // Sized before anything is hashed: a 1 GiB file or 200 000 new files cost a listing, not a copy.
    // Listed as bytes: a name that is not UTF-8, decoded, names nothing on disk, and its size would count for nothing.
    const [untracked, changed] = await Promise.all([
      gitBytes(target, ['ls-files', '-z', '--others', '--exclude-standard']),
      gitBytes(target, ['diff-files', '-z', '--name-only']),
    ]);
    const listed = new Map([...splitBytes(untracked), ...splitBytes(changed)].map((p) => [p.toString('latin1'), p]));
    const paths = [...listed.values()].map((p) => p.toString('utf8'));
    const hidden = await filesHiddenByIgnoreEdits(target, baseline.commit, paths);
    const measured = [...listed.values(), ...hidden.map((p) => Buffer.from(p))];
    const over = await overLimits(host, measured, input);
    if (over) return over;
    // Git's own listings are what `add` would act on: nothing listed, nothing changed.
    if (paths.length === 0 && hidden.length === 0) return { ok: true, tree: baseline.tree, files: 0, bytes: 0 };
    await git(target, ['add', '--all']);
    if (hidden.length > 0) {
      await git(target, ['--literal-pathspecs', 'add', '--force', '--pathspec-from-file=-', '--pathspec-file-nul'], { stdin: `${hidden.join('\0')}\0` });
    }
    const tree = (await git(target, ['write-tree'])).trim();
    const sized = await sizes(host, measured);
    return { ok: true, tree, ...sized };
  } finally {
    await rm(indexFile, { force: true });
  }
}

const execFileAsync = promisify(execFile);

/**
 * Removes every FIFO from the agent's workspace before git reads it. Git opens each `.gitignore`
 * and `.gitattributes` it meets with a blocking open(): a FIFO by that name would wait for a writer
 * that never comes, and hang the harness for good. Git never records a FIFO (only files, symlinks
 * and directories), so none is part of any change; a FIFO put where a tracked file was leaves that
 * file deleted. A harness that is not root first gives itself rwx on every directory (git
 * records no directory modes), or a FIFO in a directory made read-only could not be removed. GNU
 * find works relative to `root` (reaching what git reaches, at any depth) and never follows a
 * symlink.
 */
async function removeFifos(root: string): Promise<void> {
  const find = (args: string[]): Promise<unknown> =>
    execFileAsync('find', ['.', ...args], { cwd: root, maxBuffer: 1024 * 1024 }).catch((error: unknown) => {
      // find exits 1 on what it may not enter or remove; only a find that did not run at all is an error.
      if (typeof (error as { code?: unknown }).code === 'string') throw error;
    });
  // One chmod per directory, before find reads it: a directory of mode 000 inside another is reached too.
  if (process.getuid?.() !== 0) await find(['-type', 'd', '!', '-perm', '-u=rwx', '-exec', 'chmod', 'u+rwx', '{}', ';']);
  await find(['-type', 'p', '-delete']);
}

/**
 * Renames a nested repository's `.git` so git sees a plain directory. The scan found it by
 * reading real directories, and nothing of the agent's runs any more, so no component of the path
 * is a symlink; each is checked again all the same.
 */
async function neutralizeNestedRepo(root: string, path: Buffer): Promise<void> {
  const at = (rel: Buffer): Buffer => Buffer.concat([Buffer.from(`${root}/`), rel]);
  for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
    const info = await lstat(at(path.subarray(0, slash))).catch(() => undefined);
    if (!info?.isDirectory()) return;
  }
  const parent = path.subarray(0, path.lastIndexOf('/') + 1);
  const renamed = at(Buffer.concat([parent, Buffer.from(NESTED_GIT_NAME)]));
  // Never a symlink or a deep tree the harness could not remove: the agent may have put anything at that name.
  await removeTree(renamed);
  await rename(at(path), renamed);
}

async function overLimits(root: string, paths: Buffer[], limits: CaptureInput): Promise<Capture | undefined> {
  if (paths.length > limits.maxFiles) {
    return {
      ok: false,
      exceeded: 'change_files',
      detail: `the change touches ${paths.length} files, over the limit of ${limits.maxFiles} (limits.change_files)`,
    };
  }
  const { bytes } = await sizes(root, paths);
  if (bytes > limits.maxBytes) {
    return { ok: false, exceeded: 'change_size', detail: `the change adds ${bytes} bytes, over the limit of ${limits.maxBytes} (limits.change_size)` };
  }
  return undefined;
}

async function sizes(root: string, paths: readonly Buffer[]): Promise<{ files: number; bytes: number }> {
  let bytes = 0;
  const base = Buffer.from(`${root}/`);
  for (const path of paths) {
    const info = await lstat(Buffer.concat([base, path])).catch(() => undefined);
    if (info?.isFile() || info?.isSymbolicLink()) bytes += info.size;
  }
  return { files: paths.length, bytes };
}

function splitBytes(out: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  for (let start = 0, end = out.indexOf(0); end !== -1; start = end + 1, end = out.indexOf(0, start)) if (end > start) parts.push(out.subarray(start, end));
  return parts;
}

function split(out: string): string[] {
  return out.split('\0').filter(Boolean);
}

/**
 * An agent can hide a new file by adding it to a .gitignore. When an ignore file is among the
 * changed paths, files that the current rules ignore but the baseline's rules would not are
 * returned, to be captured anyway.
 */
async function filesHiddenByIgnoreEdits(target: GitTarget, baseline: string, changed: readonly string[]): Promise<string[]> {
  const isIgnoreFile = (path: string): boolean => path === '.gitignore' || path.endsWith('/.gitignore');
  if (!changed.some(isIgnoreFile)) return [];
  const baselineIgnores = split(await git(target, ['ls-tree', '-r', '--name-only', '-z', baseline])).filter(isIgnoreFile);

  const ignoredNow = split(await git(target, ['ls-files', '--others', '--ignored', '--exclude-standard', '-z']));
  if (ignoredNow.length === 0) return [];
  // Judge those paths against the baseline's ignore files, written alone into a scratch tree.
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-ignore-'));
  try {
    await git({ cwd: scratch }, ['init', '--quiet']);
    for (const path of baselineIgnores) {
      await mkdir(dirname(join(scratch, path)), { recursive: true });
      await writeFile(join(scratch, path), await git(target, ['cat-file', 'blob', `${baseline}:${path}`]));
    }
    const excludes = ['-c', `core.excludesFile=${join(target.gitDir ?? '', 'info', 'exclude')}`];
    const ignoredAtBaseline = new Set(await checkIgnore(scratch, ignoredNow, excludes));
    return ignoredNow.filter((path) => !ignoredAtBaseline.has(path));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Paths (which need not exist) that the ignore files under `repo` would ignore. */
async function checkIgnore(repo: string, paths: string[], config: string[]): Promise<string[]> {
  try {
    // check-ignore exits 1 when nothing is ignored; --no-index judges paths that do not exist here.
    const out = await git({ cwd: repo }, [...config, 'check-ignore', '--no-index', '-z', '--stdin'], { stdin: `${paths.join('\0')}\0` });
    return split(out);
  } catch {
    return [];
  }
}
