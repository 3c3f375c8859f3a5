import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MAX_DURATION_MS, MAX_DURATION_TEXT, toMs } from '../domain/config/index.js';
import { InputError } from '../core/errors.js';
import { shownStateDir } from './state-dir-option.js';

/** A whole number in [min, max] from a flag's text, or an InputError naming the flag. */
export function wholeNumber(flag: string, text: string | undefined, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new InputError(`${flag} ${text}: expected a whole number ≥ ${min} (fix: e.g. ${flag} ${Math.max(min, fallback)})`);
  }
  if (value > max)
    throw new InputError(`${flag} ${text}: at most ${max.toLocaleString('en-US')} (fix: e.g. ${flag} ${Math.min(max, Math.max(min, fallback))})`);
  return value;
}

/** A duration flag (`90s`, `10m`, `1h`, or seconds) in ms; refused past what a timer holds. */
export function durationFlag(flag: string, text: string): number {
  const ms = /^\d+(\.\d+)?$/.test(text) ? toMs(Number(text)) : toMs(text);
  if (ms === undefined || ms <= 0) throw new InputError(`${flag} ${text}: expected a duration (fix: e.g. ${flag} 90s, 10m or 1h)`);
  if (ms > MAX_DURATION_MS)
    throw new InputError(`${flag} ${text}: longer than ${MAX_DURATION_TEXT}, the longest timeout a timer holds (fix: e.g. ${flag} 24h)`);
  return ms;
}

/**
 * The state directory (`--out`) exists or can be made, and is a writable directory: checked before
 * any work so a typo fails in one line, not halfway through a run.
 */
/** `cwd`: the directory the user ran from, to show the directory relative to it; without it, as given. */
export function writableStateDir(flag: string, stateDir: string, cwd?: string): void {
  const dir = cwd === undefined ? stateDir : shownStateDir(stateDir, cwd);
  let isDir: boolean | undefined;
  try {
    isDir = statSync(stateDir).isDirectory();
  } catch {
    isDir = undefined;
  }
  if (isDir === false) throw new InputError(`${flag} ${dir}: is a file, expected a directory (fix: pass a directory, e.g. ${flag} .crucible)`);
  try {
    if (isDir === undefined) makeDirs(stateDir);
    accessSync(stateDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'EROFS')
      throw new InputError(`${flag} ${dir}: on a read-only file system (fix: pass a directory you can write, e.g. ${flag} .crucible, or mount it read-write)`);
    const why = code === 'EACCES' || code === 'EPERM' ? 'not writable' : code === 'ENOTDIR' ? 'a parent is a file' : `cannot be created (${code})`;
    throw new InputError(`${flag} ${dir}: ${why} (fix: pass a directory you can write, e.g. ${flag} .crucible)`);
  }
}

/**
 * mkdir -p, one level at a time: Node's `mkdirSync(…, { recursive: true })` spins forever where a
 * parent refuses new entries with ENOENT (under /proc, seen on Node 20).
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let current = resolve(dir); !existsSync(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  for (const level of missing) mkdirSync(level);
}
