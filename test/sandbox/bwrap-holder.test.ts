import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutor, startOverlayHolder, type Executor, type OverlayHolder, type SandboxLayout } from '../../src/infra/sandbox/index.js';
import { emptyOverlay } from '../helpers/overlay.js';
import { useTempDirs } from '../helpers/tmp.js';

/**
 * The bwrap executor over a workspace an overlay holder keeps mounted for the whole attempt: each
 * command enters the holder's namespace, sees the one merged tree, writes only into upper, and
 * reaches neither the lower tree nor the holder.
 */
const tempDir = useTempDirs();
const open: Array<OverlayHolder | Executor> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function heldWorkspace(): Promise<{ root: string; holder: OverlayHolder; executor: Executor }> {
  const root = tempDir();
  const overlay = emptyOverlay(root);
  for (const dir of [join(root, 'home'), join(root, 'tmp')]) mkdirSync(dir);
  writeFileSync(join(overlay.lower, 'a.txt'), 'lower\n');
  const holder = await startOverlayHolder(overlay);
  open.push(holder);
  const layout: SandboxLayout = {
    writable: [overlay.target],
    hidden: [],
    readOnly: [],
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    overlay: holder.overlay,
  };
  const executor = createExecutor('bwrap', layout);
  open.push(executor);
  return { root, holder, executor };
}

function sh(executor: Executor, cwd: string, script: string) {
  return executor.exec({ argv: ['sh', '-c', script], cwd, timeoutMs: 300_000, network: 'none' });
}

describe('bwrap commands inside an overlay holder', () => {
  it('share one mount: what one command writes the next one and the host view see, and it lands in upper', async () => {
    const { root, holder, executor } = await heldWorkspace();
    const ws = join(root, 'ws');
    const first = await sh(executor, ws, 'echo one > made.txt && echo two >> a.txt');
    expect(first.exitCode).toBe(0);
    const second = await sh(executor, ws, 'cat made.txt a.txt');
    expect(second.stdout).toBe('one\nlower\ntwo\n');
    expect(readFileSync(join(holder.view(ws), 'made.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(root, 'upper', 'a.txt'), 'utf8')).toBe('lower\ntwo\n');
    expect(readFileSync(join(root, 'lower', 'a.txt'), 'utf8')).toBe('lower\n');
    expect(readdirSync(ws)).toEqual([]);
  });

  it('keep exit status, and a command writing the lower tree, the upper directory or the holder through /proc gets nowhere', async () => {
    const { root, holder, executor } = await heldWorkspace();
    const ws = join(root, 'ws');
    const pid = holder.overlay.heldBy;
    const attack = [
      `echo pwned > ${root}/lower/a.txt`,
      `echo pwned > ${root}/upper/planted`,
      `echo pwned > /proc/${pid}/root${root}/lower/a.txt`,
      `echo pwned > /proc/${pid}/root${ws}/viaproc`,
      `for p in /proc/[0-9]*/root; do echo pwned > "$p${root}/lower/a.txt"; done`,
      'umount ws; umount .',
    ]
      .map((line) => `(${line}) 2>/dev/null`)
      .join('; ');
    const run = await sh(executor, ws, `${attack}; exit 7`);
    expect(run.exitCode).toBe(7);
    expect(readFileSync(join(root, 'lower', 'a.txt'), 'utf8')).toBe('lower\n');
    expect(existsSync(join(root, 'upper', 'planted'))).toBe(false);
    expect(existsSync(join(root, 'upper', 'viaproc'))).toBe(false);
    // The mount is still there for the next command.
    expect((await sh(executor, ws, 'cat a.txt')).stdout).toBe('lower\n');
    expect(lstatSync(join(root, 'lower')).isDirectory()).toBe(true);
  });
});
