import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { attemptBudget } from './budget.js';

export const CLI = resolve('bin/crucible.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The limit for commands that run no or a few attempts (history, show, a one-task run). */
const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Runs the built CLI as a user would (`npm test` builds first). `attempts` is how many attempts the
 * command runs, which sets how long it may take (see budget.ts).
 */
export function crucible(args: string[], options: { cwd?: string; env?: Record<string, string | undefined>; attempts?: number } = {}): CliResult {
  if (!existsSync('dist/cli/main.js')) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: 'true', ...options.env },
    timeout: options.attempts === undefined ? DEFAULT_TIMEOUT_MS : attemptBudget(options.attempts),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
