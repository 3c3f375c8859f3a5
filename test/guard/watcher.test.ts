import { mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { watchTree, type TreeEvent, type TreeWatchOptions } from '../../src/domain/guard/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Generous: this waits for an event to arrive, it does not time it. */
const ARRIVAL = { timeout: 20_000, interval: 20 };

async function watching(root: string, options: Omit<TreeWatchOptions, 'onEvent'> = {}) {
  const events: TreeEvent[] = [];
  const watcher = await watchTree(root, { ...options, onEvent: (e) => events.push(e) });
  const arrived = (path: string, kind: TreeEvent['kind'] = 'write') =>
    vi.waitFor(() => {
      const found = events.find((e) => e.path === path && e.kind === kind);
      if (!found) throw new Error(`no ${kind} event for ${path} yet; have ${events.map((e) => `${e.kind} ${e.path}`).join(', ')}`);
      return found;
    }, ARRIVAL);
  return { events, watcher, arrived };
}

describe.each([
  ['inotify', {}],
  ['polling (forced)', { poll: true, pollIntervalMs: 50 }],
] as const)('watchTree with %s', (label, options) => {
  it('sees files written in new nested directories, created after the watch started', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'existing.txt'), 'x');
    const { events, watcher, arrived } = await watching(root, options);
    expect(watcher.mode).toBe(label === 'inotify' ? 'inotify' : 'poll');
    expect([...watcher.initial]).toEqual(['existing.txt']);
    mkdirSync(join(root, 'a/b/c'), { recursive: true });
    writeFileSync(join(root, 'a/b/c/deep.txt'), 'deep');
    const event = await arrived('a/b/c/deep.txt');
    expect(event).toMatchObject({ entry: 'file', created: true });
    expect(event.detectedAtMs - event.changedAtMs).toBeGreaterThanOrEqual(0);
    writeFileSync(join(root, 'existing.txt'), 'changed, longer');
    expect(await arrived('existing.txt')).toMatchObject({ created: false, entry: 'file' });
    await watcher.close();
    expect(events.some((e) => e.path === 'a/b' && e.entry === 'dir')).toBe(true);
  });

  it('reports deletions of files and of whole directories', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'dir/sub'), { recursive: true });
    writeFileSync(join(root, 'dir/sub/f.txt'), 'f');
    writeFileSync(join(root, 'g.txt'), 'g');
    const { watcher, arrived } = await watching(root, options);
    unlinkSync(join(root, 'g.txt'));
    expect(await arrived('g.txt', 'delete')).toMatchObject({ entry: 'file', created: false });
    rmSync(join(root, 'dir'), { recursive: true });
    await arrived('dir/sub/f.txt', 'delete');
    await watcher.close();
  });

  it('reports a symlink as a link and never follows it', async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'before.txt'), 'outside');
    // A link that exists at the start is not followed either.
    symlinkSync(outside, join(root, 'old-link'));
    const { events, watcher, arrived } = await watching(root, options);
    expect([...watcher.initial].sort()).toEqual(['old-link']);
    symlinkSync(outside, join(root, 'new-link'));
    expect(await arrived('new-link')).toMatchObject({ entry: 'symlink', linkTarget: outside, created: true });
    writeFileSync(join(outside, 'after.txt'), 'written outside, through nothing');
    // Something after the outside write that the watcher must see; then a full last read.
    writeFileSync(join(root, 'sentinel.txt'), 's');
    await arrived('sentinel.txt');
    await watcher.close();
    expect(events.filter((e) => e.path.includes('/')).map((e) => e.path)).toEqual([]);
  });
});

it('falls back to polling when the watch limit is reached, and still sees everything', async () => {
  const root = tempDir();
  mkdirSync(join(root, 'one'));
  mkdirSync(join(root, 'two'));
  const { watcher, arrived } = await watching(root, { maxWatches: 1, pollIntervalMs: 50 });
  expect(watcher.mode).toBe('poll');
  mkdirSync(join(root, 'two/three'));
  writeFileSync(join(root, 'two/three/x.txt'), 'x');
  await arrived('two/three/x.txt');
  await watcher.close();
});

it('leaves out ignored paths, such as the workspace’s own .git', async () => {
  const root = tempDir();
  mkdirSync(join(root, '.git'));
  const { events, watcher, arrived } = await watching(root, { ignore: ['.git'] });
  writeFileSync(join(root, '.git/index'), 'i');
  writeFileSync(join(root, 'seen.txt'), 's');
  await arrived('seen.txt');
  await watcher.close();
  expect(events.map((e) => e.path)).toEqual(['seen.txt']);
});
