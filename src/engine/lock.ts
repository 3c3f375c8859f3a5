import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename } from 'node:path';
import { open, readFile, unlink } from 'node:fs/promises';
import { InputError } from '../core/errors.js';

import { runFile } from '../domain/run-dir/index.js';

/**
 * Makes sure one process at a time works on a run: two resumes of the same run would run the same
 * attempts twice and append them twice. The lock names its process by pid, host and the process's
 * start time. A lock is stale, and taken over, when its process is gone (killed with SIGKILL, the
 * machine rebooted) or its pid now belongs to another process: a different start time, or, for a
 * lock without one, a command line that is not Node's. Returns the release function.
 */
export async function acquireRunLock(runDir: string, runId: string): Promise<() => Promise<void>> {
  const file = runFile(runDir, 'lock');
  const started = startTimeOf(process.pid);
  const mine = `${process.pid} ${hostname()}${started !== undefined ? ` ${started}` : ''}\n`;
  for (let tries = 0; tries < 2; tries++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(mine);
      await handle.close();
      return async () => {
        const current = await readFile(file, 'utf8').catch(() => '');
        if (current === mine) await unlink(file).catch(() => undefined);
      };
    } catch (error) {
      // Anything but "it exists" (a read-only or full state directory) is the caller's to report.
      if (!isCode(error, 'EEXIST')) throw error;
    }
    const holder = parseLock(await readFile(file, 'utf8').catch(() => ''));
    if (holder.host === hostname() && holder.pid !== process.pid && holdsLock(holder)) {
      throw new InputError(`run ${runId} is in use by process ${holder.pid} (fix: wait for it to finish, or stop it first)`);
    }
    if (holder.host !== undefined && holder.host !== hostname()) {
      throw new InputError(`run ${runId} is locked by host ${holder.host} (fix: if no process there works on it, delete ${file})`);
    }
    try {
      await unlink(file);
    } catch (error) {
      // Gone already: another process took it over first, and the next open says so.
      if (!isCode(error, 'ENOENT')) throw error;
    }
  }
  throw new InputError(`run ${runId} is being locked by another process at the same time (fix: try again)`);
}

interface LockHolder {
  pid: number;
  host?: string;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat field 22); absent in old locks. */
  started?: string;
}

function parseLock(text: string): LockHolder {
  const [pidText, host, started] = text.trim().split(' ');
  const pid = Number(pidText);
  return { pid: Number.isInteger(pid) && pid > 0 ? pid : 0, host, ...(started ? { started } : {}) };
}

/** Whether the process the lock names still runs and is the one that took it. */
function holdsLock(holder: LockHolder): boolean {
  if (holder.pid === 0 || !isAlive(holder.pid)) return false;
  const now = startTimeOf(holder.pid);
  // Without /proc (not Linux) a live pid is all there is to go by.
  if (now === undefined) return true;
  if (holder.started !== undefined) return holder.started === now;
  return looksLikeNode(holder.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return isCode(error, 'EPERM');
  }
  // A killed process whose parent has not reaped it yet still answers kill(0): a zombie holds no lock.
  return !isZombie(pid);
}

/** The state and start time fields of /proc/<pid>/stat, after the command name (which may hold spaces). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function isZombie(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state === 'Z' || state === 'X';
}

/** Field 22 of /proc/<pid>/stat; fields after the command name start at 3. */
function startTimeOf(pid: number): string | undefined {
  return statFields(pid)?.[22 - 3];
}

/** Crucible runs on Node (`node …/crucible.js`, or in-process in a Node program): a `sleep` that got the pid does not. */
function looksLikeNode(pid: number): boolean {
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return /node|crucible/i.test(basename(argv0)) || basename(argv0) === basename(process.execPath);
  } catch {
    return true;
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
