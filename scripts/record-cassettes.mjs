/**
 * What both recording scripts do: empty a cassette directory, start a scripted upstream, run
 * `crucible run … --record DIR` (from dist/) in a scratch state directory with placeholder keys
 * (the gateway forwards with a key; a scripted upstream ignores it), then clean up. Resolves to
 * the run's exit code.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * @param {{ cassettes: string, upstream: { baseUrl: string, close(): Promise<void> },
 *   runArgs: (baseUrl: string) => string[], keys: string[], env?: Record<string, string> }} options
 * @returns {Promise<number>}
 */
export async function recordCassettes({ cassettes, upstream, runArgs, keys, env = {} }) {
  mkdirSync(cassettes, { recursive: true });
  // Cassettes are <task>/<agent>/<trial>.jsonl (older recordings: flat .jsonl files); nothing else here is removed.
  for (const entry of readdirSync(cassettes, { withFileTypes: true })) {
    if (entry.isDirectory() || entry.name.endsWith('.jsonl')) rmSync(join(cassettes, entry.name), { recursive: true });
  }
  const state = mkdtempSync(join(tmpdir(), 'crucible-record-'));
  const args = [join(ROOT, 'dist', 'cli', 'main.js'), 'run', ...runArgs(upstream.baseUrl), '--record', cassettes, '--out', state, ...process.argv.slice(2)];
  const placeholders = Object.fromEntries(keys.map((name) => [name, 'scripted-upstream-ignores-keys']));
  // Not spawnSync: the scripted upstream answers on this process's event loop.
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env, ...placeholders } });
    child.on('exit', (status) => resolve(status ?? 1));
  });
  await upstream.close();
  rmSync(state, { recursive: true, force: true });
  return /** @type {number} */ (code);
}
