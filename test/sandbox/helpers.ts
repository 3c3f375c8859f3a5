import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** A throwaway tree shaped like an attempt: what the sandbox may write, must hide, may read. */
export interface SandboxDirs {
  root: string;
  workspace: string;
  home: string;
  tmp: string;
  /** The source repository the workspace was copied from: readable, never writable. */
  repo: string;
  /** Any other host directory: not writable from a sandbox. */
  outside: string;
  /** Hidden (like a task set with oracle patches)... */
  taskSet: string;
  /** ...except this directory inside it, re-exposed read-only (like the baseline objects). */
  baseline: string;
  /** A hidden file. */
  secretFile: string;
}

/**
 * Made under test-artifacts/ in the checkout, not under /tmp: a bwrap sandbox gets a private /tmp,
 * so host paths there are simply absent inside, and "cannot write" would prove nothing. A checkout
 * that itself lives under /tmp (CI clones often do) uses /var/tmp instead.
 */
export async function makeSandboxDirs(): Promise<SandboxDirs> {
  const inCheckout = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
  const underTmp = [tmpdir(), '/tmp'].some((t) => inCheckout === t || inCheckout.startsWith(`${t}/`));
  const base = underTmp ? '/var/tmp/crucible-sandbox-tests/' : inCheckout;
  await mkdir(base, { recursive: true });
  const root = await realpath(await mkdtemp(join(base, 'sandbox-')));
  const dirs: SandboxDirs = {
    root,
    workspace: join(root, 'workspace'),
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
    repo: join(root, 'repo'),
    outside: join(root, 'outside'),
    taskSet: join(root, 'taskset'),
    baseline: join(root, 'taskset', 'baseline'),
    secretFile: join(root, 'secret.env'),
  };
  for (const dir of [dirs.workspace, dirs.home, dirs.tmp, dirs.repo, dirs.outside, dirs.baseline]) {
    await mkdir(dir, { recursive: true });
  }
  await writeFile(join(dirs.repo, 'README'), 'the repo\n');
  await writeFile(join(dirs.taskSet, 'oracle.patch'), 'the answer\n');
  await writeFile(join(dirs.baseline, 'objects'), 'baseline objects\n');
  await writeFile(dirs.secretFile, 'API_KEY=hunter2\n');
  return dirs;
}

/** Live (non-zombie) processes with `arg` as one of their arguments, with their host pids. */
export function processesWithArg(arg: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (args.includes(arg) && isAlive(Number(name))) pids.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}

export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls until `condition` holds or `stop` settles; returns whether the condition held. */
export async function waitFor(condition: () => boolean, stop: Promise<unknown>): Promise<boolean> {
  let stopped = false;
  void stop.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  while (!stopped) {
    if (condition()) return true;
    await sleep(20);
  }
  return condition();
}

/** A number no other process on the machine is likely to pass to `sleep`, to find ours by. */
export function uniqueSleepArg(): string {
  return String(7_000_000 + Math.floor(Math.random() * 2_000_000));
}
