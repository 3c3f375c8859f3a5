import { execFile, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startOverlayHolder, type OverlayHolder, type TreeOverlay } from '../../src/infra/sandbox/index.js';
import { enterHolderArgv } from '../../src/infra/sandbox/tree-overlay.js';
import { overlaySupported } from '../../src/infra/workspace/tree-overlay.js';
import { emptyOverlay } from '../helpers/overlay.js';
import { useTempDirs } from '../helpers/tmp.js';

const execFileAsync = promisify(execFile);
const tempDir = useTempDirs();
const holders: OverlayHolder[] = [];
afterEach(async () => {
  await Promise.all(holders.splice(0).map((h) => h.close()));
});

/** A lower tree (a file, a file to delete, a directory) and empty upper, work and target directories. */
function layers(): TreeOverlay {
  const root = tempDir();
  const overlay = emptyOverlay(root);
  writeFileSync(join(overlay.lower, 'kept'), 'lower\n');
  writeFileSync(join(overlay.lower, 'gone'), 'lower\n');
  mkdirSync(join(overlay.lower, 'dir'));
  writeFileSync(join(overlay.lower, 'dir', 'inner'), 'lower\n');
  return overlay;
}

async function holding(overlay: TreeOverlay): Promise<OverlayHolder> {
  const holder = await startOverlayHolder(overlay);
  holders.push(holder);
  return holder;
}

describe('overlay holder', () => {
  it('runs here: this machine mounts overlays in an unprivileged user namespace', async () => {
    expect(await overlaySupported(tempDir())).toBe(true);
  });

  it('shows the merged tree to the host through /proc/<pid>/root, writes land in upper, the lower tree stays as it was', async () => {
    const overlay = layers();
    const holder = await holding(overlay);
    const view = holder.view(overlay.target);
    expect(readdirSync(view).sort()).toEqual(['dir', 'gone', 'kept']);
    expect(readFileSync(join(view, 'dir', 'inner'), 'utf8')).toBe('lower\n');
    writeFileSync(join(view, 'kept'), 'changed\n');
    writeFileSync(join(view, 'added'), 'new\n');
    rmSync(join(view, 'gone'));
    // The host's own path is the empty mount point: the mount is the holder's namespace's alone.
    expect(readdirSync(overlay.target)).toEqual([]);
    expect(readFileSync(join(overlay.upper, 'kept'), 'utf8')).toBe('changed\n');
    expect(readFileSync(join(overlay.upper, 'added'), 'utf8')).toBe('new\n');
    const whiteout = lstatSync(join(overlay.upper, 'gone'));
    expect(whiteout.isCharacterDevice() && whiteout.rdev === 0).toBe(true);
    expect(readFileSync(join(overlay.lower, 'kept'), 'utf8')).toBe('lower\n');
    expect(readFileSync(join(overlay.lower, 'gone'), 'utf8')).toBe('lower\n');
    expect(existsSync(join(overlay.lower, 'added'))).toBe(false);
  });

  it('runs a command inside its namespace, where the merged tree is at the target path', async () => {
    const overlay = layers();
    const holder = await holding(overlay);
    const [command = 'nsenter', ...args] = enterHolderArgv(holder.overlay.heldBy);
    const { stdout } = await execFileAsync(command, [...args, '/bin/sh', '-c', 'cat "$1/kept" && echo inside > "$1/dir/made" && id -u', 'in', overlay.target]);
    // The harness's uid shows as root in there: the holder's user namespace maps it.
    expect(stdout).toBe(`lower\n0\n`);
    expect(readFileSync(join(overlay.upper, 'dir', 'made'), 'utf8')).toBe('inside\n');
    expect(readFileSync(join(holder.view(overlay.target), 'dir', 'made'), 'utf8')).toBe('inside\n');
    expect(existsSync(join(overlay.lower, 'dir', 'made'))).toBe(false);
  });

  it("runs a harness's command in the merged tree itself when given a directory there (not the host's mount point beneath)", async () => {
    const overlay = layers();
    const holder = await holding(overlay);
    const [command = 'nsenter', ...args] = holder.enterArgv(join(overlay.target, 'dir'));
    const { stdout } = await execFileAsync(command, [...args, '/bin/sh', '-c', 'ls && cat inner']);
    expect(stdout).toBe('inner\nlower\n');
  });

  it('keeps the mount with the directory when the host renames the mount point', async () => {
    const overlay = layers();
    const holder = await holding(overlay);
    const moved = `${overlay.target}-aside`;
    await execFileAsync('mv', [overlay.target, moved]);
    expect(readFileSync(join(holder.view(moved), 'kept'), 'utf8')).toBe('lower\n');
  });

  it('ends on close: its view is refused and its process is gone', async () => {
    const overlay = layers();
    const holder = await holding(overlay);
    const pid = holder.overlay.heldBy;
    await holder.close();
    await holder.close();
    expect(() => holder.view(overlay.target)).toThrow(/gone/);
    expect(existsSync(`/proc/${pid}/root`)).toBe(false);
  });

  it('refuses a mount the kernel refuses, with its reason', async () => {
    const overlay = layers();
    await expect(startOverlayHolder({ ...overlay, lower: join(overlay.lower, 'missing') })).rejects.toThrow(/could not mount the tree/);
  });

  it('dies with the process that started it, however that one ends', async () => {
    const overlay = layers();
    const module = resolve('dist/infra/sandbox/overlay-holder.js');
    const script = `const { startOverlayHolder } = await import(${JSON.stringify(module)}); const h = await startOverlayHolder(JSON.parse(process.argv[1])); console.log(h.overlay.heldBy); setInterval(() => {}, 1 << 30);`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(overlay)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolvePid, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolvePid(Number(chunk.toString().trim())));
      parent.once('exit', () => reject(new Error('the parent ended before its holder was ready')));
    });
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    parent.kill('SIGKILL');
    // Its stdin ends with its parent: it exits, and whoever reaps orphans reaps it.
    while (isLiving(pid)) await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(overlay.target)).toEqual([]);
  });
});

/** Alive and not a zombie waiting to be reaped. */
function isLiving(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
