#!/usr/bin/env node
/**
 * Re-records examples/cassettes/quickstart: the built-in agent (openai:gpt-4.1-mini) on every
 * example task, its model traffic answered by scripts/scripted-upstream.mjs — a script, not a model
 * (read its header) — and recorded by the model gateway. Needs `npm run build` first; extra
 * arguments go to `crucible run` (e.g. --sandbox local).
 *
 *   node scripts/record-quickstart.mjs
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedUpstream } from './scripted-upstream.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cassettes = join(root, 'examples', 'cassettes', 'quickstart');
mkdirSync(cassettes, { recursive: true });
for (const file of readdirSync(cassettes).filter((f) => f.endsWith('.jsonl'))) rmSync(join(cassettes, file));

const upstream = await startScriptedUpstream();
const state = mkdtempSync(join(tmpdir(), 'crucible-record-'));
const args = [
  join(root, 'dist', 'cli', 'main.js'),
  'run',
  join(root, 'examples', 'tasks.yaml'),
  '--model',
  'openai:gpt-4.1-mini',
  '--base-url',
  upstream.baseUrl,
  '--record',
  cassettes,
  '--out',
  state,
  ...process.argv.slice(2),
];
// Not spawnSync: the scripted upstream answers on this process's event loop.
const code = await new Promise((resolve) => {
  // The gateway forwards with a key; the scripted upstream ignores it, so a placeholder does.
  const env = { ...process.env, OPENAI_API_KEY: 'scripted-upstream-ignores-keys' };
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env });
  child.on('exit', (status) => resolve(status ?? 1));
});
await upstream.close();
rmSync(state, { recursive: true, force: true });
process.exitCode = code;
