import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createExecutor, type SandboxLayout, type TreeOverlay } from '../../src/infra/sandbox/index.js';
import { commitBaseline, forkBaseline, type Baseline } from '../../src/infra/workspace/baseline.js';
import { git } from '../../src/infra/workspace/git.js';
import { materializeTree } from '../../src/infra/workspace/materialize.js';
import { OverlayConflictError, overlaySupported, overlayTree } from '../../src/infra/workspace/tree-overlay.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A pristine tree committed as the baseline, and a store where a change's tree is made. */
async function pristineTree(files: Record<string, string>, untracked: Record<string, string> = {}) {
  const root = tempDir();
  const pristine = join(root, 'pristine');
  for (const [path, content] of Object.entries(files)) write(pristine, path, content);
  const shared = await commitBaseline(pristine, join(root, 'baseline.git'), join(root, 'shared-store.git'));
  for (const [path, content] of Object.entries(untracked)) write(pristine, path, content);
  const baseline = await forkBaseline(shared, join(root, 'store.git'));
  return { root, pristine, baseline };
}

/** The baseline's tree edited in a scratch work tree of the store's: `edit` runs there, its state committed as a tree. */
async function changeTree(baseline: Baseline, root: string, edit: (dir: string) => void): Promise<string> {
  const work = join(root, `edit-${Math.random().toString(36).slice(2)}`);
  const indexFile = `${work}.index`;
  const target = { gitDir: baseline.store, workTree: work, indexFile };
  mkdirSync(work);
  await git(target, ['read-tree', baseline.tree]);
  await git(target, ['checkout-index', '-a']);
  edit(work);
  await git(target, ['add', '--all']);
  return (await git(target, ['write-tree'])).trim();
}

/** Every entry under `dir` with its kind and content, as a sorted listing. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const rel = relative(dir, full);
      if (rel === '.git') continue;
      const info = lstatSync(full);
      if (info.isDirectory()) {
        out.push(`${rel}/`);
        walk(full);
      } else if (info.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(full)}`);
      else out.push(`${rel} ${(info.mode & 0o111) !== 0 ? 'x' : '-'} ${readFileSync(full, 'utf8')}`);
    }
  };
  walk(dir);
  return out.sort();
}

function layoutFor(root: string, workspace: string, overlay: TreeOverlay): SandboxLayout {
  for (const d of ['home', 'tmp']) mkdirSync(join(root, d), { recursive: true });
  return { writable: [workspace], hidden: [], readOnly: [], home: join(root, 'home'), tmp: join(root, 'tmp'), overlay };
}

/** Runs `script` in a bwrap sandbox whose workspace is the overlay. */
async function inOverlay(root: string, overlay: TreeOverlay, script: string): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const executor = createExecutor('bwrap', layoutFor(root, overlay.target, overlay));
  try {
    return await executor.exec({ argv: ['sh', '-c', script], cwd: overlay.target, timeoutMs: 300_000, network: 'none' });
  } finally {
    await executor.close();
  }
}

const FILES = {
  'a.txt': 'a\n',
  'c.txt': 'c\n',
  'sub/b.txt': 'b\n',
  'gone/e.txt': 'e\n',
  'gone/deeper/f.txt': 'f\n',
  'run.sh': '#!/bin/sh\necho run\n',
  'emptied/g.txt': 'g\n',
  'emptied/deep/h.txt': 'h\n',
  'kept/i.txt': 'i\n',
};

describe('a tree given as an overlay of the pristine tree', () => {
  it('is supported on this machine: kernel overlayfs mounts in an unprivileged user namespace', async () => {
    expect(await overlaySupported(tempDir())).toBe(true);
  });

  it('shows in the sandbox exactly what a copy with the change checked out holds', async () => {
    const { root, pristine, baseline } = await pristineTree(FILES, { 'build/out.js': 'built\n', 'kept/untracked.log': 'log\n' });
    const tree = await changeTree(baseline, root, (dir) => {
      // Emptied: git's checkout removes the directory; one still holding an untracked file stays.
      execFileSync('rm', ['-r', join(dir, 'emptied'), join(dir, 'kept')]);
      writeFileSync(join(dir, 'a.txt'), 'changed\n');
      execFileSync('rm', ['-r', join(dir, 'c.txt'), join(dir, 'gone')]);
      write(dir, 'sub/new.txt', 'new\n');
      write(dir, 'gone', 'a file where a directory was\n');
      execFileSync('chmod', ['-x', join(dir, 'run.sh')]);
      symlinkSync('a.txt', join(dir, 'link'));
    });
    const before = listing(pristine);
    const overlay = await overlayTree({ pristine, dest: join(root, 'ws'), scratch: join(root, 'ws.overlay'), baseline, tree });
    const seen = await inOverlay(root, overlay, 'find . | LC_ALL=C sort; echo ---; cat a.txt gone; readlink link; test -x run.sh || echo not-executable');

    const copy = join(root, 'copy');
    await materializeTree({ pristine, dest: copy, baseline, tree });
    const names = ['.', ...listing(copy).map((e) => `./${(e.split(' ')[0] ?? '').replace(/\/$/, '')}`)].sort();
    expect(seen.exitCode).toBe(0);
    const [found = '', shown = ''] = seen.stdout.split('---\n');
    expect(found.trim().split('\n')).toEqual(names);
    expect(shown).toBe('changed\na file where a directory was\na.txt\nnot-executable\n');
    // The pristine tree, the lower layer, is as it was.
    expect(listing(pristine)).toEqual(before);
  });

  it('keeps the lower tree unwritten whatever the sandbox writes, deletes or renames through the overlay', async () => {
    const { root, pristine, baseline } = await pristineTree(FILES, { 'node_modules/dep/index.js': 'dep\n' });
    const before = listing(pristine);
    const overlay = await overlayTree({ pristine, dest: join(root, 'ws'), scratch: join(root, 'ws.overlay'), baseline, tree: baseline.tree });
    const attack = [
      'echo pwned > a.txt',
      'echo pwned >> sub/b.txt',
      'rm -rf gone node_modules/dep',
      'mv c.txt moved.txt',
      'chmod 000 run.sh',
      'mkdir -p new && echo x > new/y',
      'touch -d 2001-01-01 sub',
      'ln -sf /etc/passwd a2',
      // Every path the sandbox might reach the pristine tree by: none is shown to it.
      `echo pwned > ${pristine}/a.txt 2>/dev/null; echo pwned > ${overlay.upper}/../x 2>/dev/null; true`,
    ].join('; ');
    const run = await inOverlay(root, overlay, attack);
    expect(run.exitCode).toBe(0);
    expect(listing(pristine)).toEqual(before);
    expect(readFileSync(join(overlay.upper, 'a.txt'), 'utf8')).toBe('pwned\n');
    // The deletion is a whiteout in the upper directory.
    expect(lstatSync(join(overlay.upper, 'c.txt')).isCharacterDevice()).toBe(true);
  });

  it('refuses a change that adds a file where the pristine tree has one git does not track, as a checkout does', async () => {
    const { root, pristine, baseline } = await pristineTree(FILES, { 'build/out.js': 'built\n' });
    const tree = await changeTree(baseline, root, (dir) => write(dir, 'build/out.js', 'forged\n'));
    await expect(overlayTree({ pristine, dest: join(root, 'ws'), scratch: join(root, 'ws.overlay'), baseline, tree })).rejects.toThrow(OverlayConflictError);
    await expect(materializeTree({ pristine, dest: join(root, 'copy'), baseline, tree })).rejects.toThrow(/overwritten/);
  });
});
