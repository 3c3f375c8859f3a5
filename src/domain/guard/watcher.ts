/**
 * A recursive watcher over one directory tree that never follows a symlink. Node 20's
 * `fs.watch(dir, { recursive: true })` on Linux is a JavaScript walk that stats through symlinks
 * and can miss a directory created and filled between two events, so this keeps one
 * non-recursive inotify watch per real directory (found with lstat), adds a watch (and reads the
 * directory) the moment a new directory appears, and compares every entry with what it saw last.
 * Where inotify is unavailable, or the watch limit is hit, it falls back to polling the tree.
 */
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export type TreeEntryKind = 'file' | 'dir' | 'symlink' | 'other';

export interface TreeEvent {
  /** `write` covers added and modified entries; `created` tells which. */
  kind: 'write' | 'delete';
  /** Root-relative, `/`-separated. */
  path: string;
  entry: TreeEntryKind;
  /** True when the entry did not exist when the watch started (or when it was last deleted). */
  created: boolean;
  /** A symlink's target as written (never followed). */
  linkTarget?: string;
  /** When the change happened, as well as it is known: the entry's mtime, or the event's arrival. */
  changedAtMs: number;
  /** When the watcher saw it. */
  detectedAtMs: number;
}

export interface TreeWatchOptions {
  /** Root-relative paths (and everything under them) not watched, e.g. `.git`. */
  ignore?: readonly string[];
  /** Poll instead of inotify (also what happens when inotify fails). */
  poll?: boolean;
  pollIntervalMs?: number;
  /** Most directories watched with inotify before switching to polling. */
  maxWatches?: number;
  /** Most entries tracked; past it the watcher stops tracking new ones and says so (`complete`). */
  maxEntries?: number;
  onEvent(event: TreeEvent): void;
}

export interface TreeWatcher {
  readonly mode: 'inotify' | 'poll';
  /** Entries at the start, by relative path. */
  readonly initial: ReadonlySet<string>;
  /** Entries tracked now (files, links and directories). */
  count(): number;
  complete(): boolean;
  /** Reads the whole tree once more (catching anything an event missed), then stops watching. */
  close(): Promise<void>;
}

interface Seen {
  kind: TreeEntryKind;
  mtimeMs: number;
  size: number;
  linkTarget?: string;
}

const DEFAULT_POLL_MS = 300;
const DEFAULT_MAX_WATCHES = 8_000;
const DEFAULT_MAX_ENTRIES = 200_000;

export async function watchTree(rootDir: string, options: TreeWatchOptions): Promise<TreeWatcher> {
  const root = resolve(rootDir);
  const ignore = (options.ignore ?? []).map((p) => p.replace(/\/+$/, ''));
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxWatches = options.maxWatches ?? DEFAULT_MAX_WATCHES;
  const seen = new Map<string, Seen>();
  const watchers = new Map<string, FSWatcher>();
  let mode: 'inotify' | 'poll' = options.poll ? 'poll' : 'inotify';
  let complete = true;
  let closed = false;
  let pollTimer: NodeJS.Timeout | undefined;
  // Directory reads are chained per directory so two events never interleave their comparisons.
  const pending = new Map<string, Promise<void>>();

  const ignored = (path: string): boolean => ignore.some((i) => path === i || path.startsWith(`${i}/`));

  const describe = async (abs: string): Promise<Seen | undefined> => {
    try {
      const st = await lstat(abs);
      const kind: TreeEntryKind = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
      const linkTarget = kind === 'symlink' ? await readlink(abs).catch(() => '') : undefined;
      return { kind, mtimeMs: st.mtimeMs, size: st.size, ...(linkTarget !== undefined ? { linkTarget } : {}) };
    } catch {
      return undefined;
    }
  };

  const emit = (kind: TreeEvent['kind'], path: string, now: Seen | undefined, before: Seen | undefined): void => {
    const detectedAtMs = Date.now();
    const entry = (now ?? before)?.kind ?? 'other';
    const changedAtMs = kind === 'write' && now && now.kind !== 'dir' ? Math.min(now.mtimeMs, detectedAtMs) : detectedAtMs;
    options.onEvent({
      kind,
      path,
      entry,
      created: before === undefined,
      ...(now?.linkTarget !== undefined ? { linkTarget: now.linkTarget } : {}),
      changedAtMs,
      detectedAtMs,
    });
  };

  /** Everything under `path` that was seen is gone. */
  const forget = (path: string, report: boolean): void => {
    for (const [p, s] of [...seen]) {
      if (p === path || p.startsWith(`${path}/`)) {
        seen.delete(p);
        if (report) emit('delete', p, undefined, s);
        const w = watchers.get(p);
        if (w) {
          w.close();
          watchers.delete(p);
        }
      }
    }
  };

  /** Compares one entry with what was seen; a new directory is read (and watched) at once. */
  const visit = async (path: string, report: boolean, deep = false): Promise<void> => {
    if (ignored(path)) return;
    const now = await describe(join(root, path));
    const before = seen.get(path);
    if (!now) {
      if (before) forget(path, report);
      return;
    }
    if (before && before.kind !== now.kind) forget(path, report);
    const was = before && before.kind === now.kind ? before : undefined;
    if (!was && seen.size >= maxEntries) {
      complete = false;
      return;
    }
    seen.set(path, now);
    const changed = !was || was.mtimeMs !== now.mtimeMs || was.size !== now.size || was.linkTarget !== now.linkTarget;
    if (report && changed && !(was && now.kind === 'dir')) emit('write', path, now, was);
    // A watched directory reports its own children; it is read again only when new, when it has
    // no watch (polling), or for a full pass.
    if (now.kind === 'dir' && (deep || !was || !watchers.has(path))) await readDir(path, report, deep);
  };

  const readDir = (path: string, report: boolean, deep = false): Promise<void> => {
    const previous = pending.get(path) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (mode === 'inotify' && !watchers.has(path) && !closed) addWatch(path);
      let names: string[];
      try {
        names = await readdir(join(root, path));
      } catch {
        return;
      }
      const prefix = path === '' ? '' : `${path}/`;
      const present = new Set(names.map((n) => prefix + n));
      // Children that vanished without an event of their own (a directory moved away whole).
      for (const p of [...seen.keys()]) {
        if (p.startsWith(prefix) && p !== path && !p.slice(prefix.length).includes('/') && !present.has(p)) forget(p, report);
      }
      for (const name of names) await visit(prefix + name, report, deep);
    });
    pending.set(
      path,
      next.catch(() => undefined),
    );
    return next;
  };

  const addWatch = (path: string): void => {
    if (watchers.size >= maxWatches) {
      switchToPolling();
      return;
    }
    try {
      const w = watch(join(root, path), { persistent: false }, (_event, name) => {
        if (closed) return;
        if (name === null || name === undefined) void readDir(path, true);
        else void visit(path === '' ? String(name) : `${path}/${String(name)}`, true);
      });
      w.on('error', () => {
        w.close();
        watchers.delete(path);
      });
      watchers.set(path, w);
    } catch {
      // ENOSPC (the watch limit), EMFILE, or no inotify at all: polling still sees everything.
      switchToPolling();
    }
  };

  const switchToPolling = (): void => {
    if (mode === 'poll') return;
    mode = 'poll';
    for (const w of watchers.values()) w.close();
    watchers.clear();
    startPolling();
  };

  const startPolling = (): void => {
    const interval = options.pollIntervalMs ?? DEFAULT_POLL_MS;
    // A big tree takes long to read: the pause after a pass grows with it, so polling never takes
    // more than about a fifth of a core from the agent it watches.
    const next = (delay: number): void => {
      pollTimer = setTimeout(() => {
        if (closed) return;
        const started = Date.now();
        void readDir('', true, true).finally(() => next(Math.max(interval, 4 * (Date.now() - started))));
      }, delay);
      pollTimer.unref();
    };
    next(interval);
  };

  seen.set('', { kind: 'dir', mtimeMs: 0, size: 0 });
  await readDir('', false, true);
  const initial = new Set([...seen.keys()].filter((p) => p !== ''));
  if (mode === 'poll') startPolling();

  return {
    get mode() {
      return mode;
    },
    initial,
    count: () => seen.size - 1,
    complete: () => complete,
    async close() {
      if (closed) return;
      // One last full read: a change whose event is still queued is not lost.
      await readDir('', true, true);
      closed = true;
      clearTimeout(pollTimer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
