import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { open, readFile, unlink } from 'node:fs/promises';
import { InputError } from '../errors.js';

const LOCK_FILE = 'run.lock';

/**
 * Makes sure one process at a time works on a run: two resumes of the same run would run the same
 * attempts twice and append them twice. A lock whose process is gone (killed with SIGKILL, the
 * machine rebooted) is stale and taken over. Returns the release function.
 */
export async function acquireRunLock(runDir: string, runId: string): Promise<() => Promise<void>> {
  const file = join(runDir, LOCK_FILE);
  const mine = `${process.pid} ${hostname()}\n`;
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
      if (!isCode(error, 'EEXIST')) throw error;
    }
    const holder = await readFile(file, 'utf8').catch(() => '');
    const [pidText, host] = holder.trim().split(' ');
    const pid = Number(pidText);
    if (host === hostname() && Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new InputError(`run ${runId} is in use by process ${pid} (fix: wait for it to finish, or stop it first)`);
    }
    if (host !== undefined && host !== hostname()) {
      throw new InputError(`run ${runId} is locked by host ${host} (fix: if no process there works on it, delete ${file})`);
    }
    await unlink(file).catch(() => undefined);
  }
  throw new InputError(`run ${runId} is being locked by another process at the same time (fix: try again)`);
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

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
