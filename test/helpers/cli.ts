import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const CLI = resolve('bin/crucible.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a user would (`npm test` builds first). */
export function crucible(args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): CliResult {
  if (!existsSync('dist/cli/main.js')) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: 'true', ...options.env },
    timeout: 300_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
