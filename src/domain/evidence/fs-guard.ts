/**
 * The outside-writes guard: what the agent phase changed outside the workspace, in the places the
 * harness can watch. Under bwrap the sandbox makes such writes fail, so only the cheap checks run
 * (the attempt directory's top level and the results directory). Under `--sandbox local` nothing
 * stops a write, so the guard also takes a stat-level picture of the task-set directory and the
 * task's local repo source (which later attempts copy from) and reports what changed. Writes
 * anywhere else on a local machine cannot be seen: that is what the sandbox is for.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';

export interface OutsideWrite {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
}

export interface FsGuardEvidence {
  writes: OutsideWrite[];
  /** Directories watched (absolute). */
  watched: string[];
  /** False when a watched tree was larger than the guard will stat. */
  complete: boolean;
}

/** Entries of the attempt directory the harness or an in-process agent may create. */
export const ATTEMPT_DIR_ENTRIES: ReadonlySet<string> = new Set([
  'workspace',
  'workspace.index',
  'pristine',
  'agent-workspace',
  'home',
  'tmp',
  'test-home',
  'test-tmp',
  'results',
  'baseline.git',
  'store.git',
  'commands.jsonl',
  'trajectory.jsonl',
  'trace.jsonl',
  'manifest.json',
  'attempt.json',
  'agent.log',
  // An external (CLI) agent's stdout and stderr, kept by the runner as they were.
  'agent-stdout.log',
  'agent-stderr.log',
  'gateway.jsonl',
  'cassette.json',
  'usage.json',
  // The online guard's incident bundle (src/domain/guard/), written when the agent phase ends.
  'incident.json',
  // The patch `crucible grade` applied, as it was submitted (agents/reference/patch.ts).
  'submitted.patch',
]);

const MAX_ENTRIES = 50_000;

interface Picture {
  entries: Map<string, string>;
  complete: boolean;
}

export interface FsGuard {
  attemptDir: string;
  resultsDir: string;
  trees: Array<{ root: string; exclude: string[]; before: Picture }>;
  attemptEntries: Set<string>;
}

export interface FsGuardInput {
  attemptDir: string;
  resultsDir: string;
  /** Trees to picture recursively (only when the sandbox does not enforce the filesystem). */
  trees: string[];
  /** Paths inside those trees never pictured: Crucible's state directory, the attempt itself. */
  exclude: string[];
}

export async function startFsGuard(input: FsGuardInput): Promise<FsGuard> {
  const roots = dedupeNested(input.trees.map((t) => resolve(t)));
  const exclude = input.exclude.map((p) => resolve(p));
  const trees = [];
  for (const root of roots) trees.push({ root, exclude, before: await picture(root, exclude) });
  return {
    attemptDir: input.attemptDir,
    resultsDir: input.resultsDir,
    trees,
    attemptEntries: new Set(await readdir(input.attemptDir).catch(() => [])),
  };
}

export async function finishFsGuard(guard: FsGuard): Promise<FsGuardEvidence> {
  const writes: OutsideWrite[] = [];
  let complete = true;
  for (const name of await readdir(guard.attemptDir).catch(() => [])) {
    if (!guard.attemptEntries.has(name) && !ATTEMPT_DIR_ENTRIES.has(name)) writes.push({ path: join(guard.attemptDir, name), kind: 'added' });
  }
  for (const name of await readdir(guard.resultsDir).catch(() => [])) writes.push({ path: join(guard.resultsDir, name), kind: 'added' });
  for (const tree of guard.trees) {
    const after = await picture(tree.root, tree.exclude);
    complete &&= tree.before.complete && after.complete;
    for (const [path, stamp] of after.entries) {
      const was = tree.before.entries.get(path);
      if (was === undefined) writes.push({ path, kind: 'added' });
      else if (was !== stamp) writes.push({ path, kind: 'modified' });
    }
    for (const path of tree.before.entries.keys()) if (!after.entries.has(path)) writes.push({ path, kind: 'deleted' });
  }
  return { writes, watched: [guard.attemptDir, guard.resultsDir, ...guard.trees.map((t) => t.root)], complete };
}

/** path → "size:mtime" for every file, symlink and directory under root (not following links). */
async function picture(root: string, exclude: string[]): Promise<Picture> {
  const entries = new Map<string, string>();
  let complete = true;
  const visit = async (dir: string): Promise<void> => {
    let names;
    try {
      names = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of names) {
      if (entries.size >= MAX_ENTRIES) {
        complete = false;
        return;
      }
      const abs = join(dir, entry.name);
      if (exclude.some((e) => abs === e || abs.startsWith(e + sep)) || entry.name === 'node_modules' || entry.name === '.git') continue;
      const info = await lstat(abs).catch(() => undefined);
      if (!info) continue;
      entries.set(abs, entry.isDirectory() ? 'dir' : `${info.size}:${info.mtimeMs}`);
      if (entry.isDirectory()) await visit(abs);
    }
  };
  await visit(root);
  return { entries, complete };
}

function dedupeNested(roots: string[]): string[] {
  const sorted = [...new Set(roots)].sort();
  return sorted.filter((r, i) => !sorted.slice(0, i).some((o) => isInside(r, o)));
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep));
}
