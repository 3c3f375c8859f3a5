#!/usr/bin/env node
/**
 * Re-records examples/cassettes/agents: each built-in external agent profile (the real, pinned
 * CLI packages, run in the sandbox) on every example task, its model traffic answered by
 * scripts/scripted-agent-upstream.mjs — a script, not a model (read its header) — and recorded by
 * the model gateway. Needs `npm run build` first; installs the agents into CRUCIBLE_AGENT_CACHE
 * (default node_modules/.cache/crucible-agents). Extra arguments go to `crucible run`.
 *
 *   node scripts/record-agents.mjs
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedAgentUpstream } from './scripted-agent-upstream.mjs';

export const RECORDED_AGENTS = ['claude-code', 'codex', 'qwen-code', 'gemini-cli', 'opencode'];

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cassettes = join(root, 'examples', 'cassettes', 'agents');
mkdirSync(cassettes, { recursive: true });
for (const file of readdirSync(cassettes).filter((f) => f.endsWith('.jsonl'))) rmSync(join(cassettes, file));

const upstream = await startScriptedAgentUpstream();
const state = mkdtempSync(join(tmpdir(), 'crucible-record-'));
const args = [
  join(root, 'dist', 'cli', 'main.js'),
  'run',
  join(root, 'examples', 'tasks.yaml'),
  ...RECORDED_AGENTS.flatMap((name) => ['--agent', name]),
  '--base-url',
  `anthropic=${upstream.baseUrl}`,
  '--base-url',
  `openai=${upstream.baseUrl}/v1`,
  '--base-url',
  `gemini=${upstream.baseUrl}`,
  '--record',
  cassettes,
  '--out',
  state,
  ...process.argv.slice(2),
];
// Not spawnSync: the scripted upstream answers on this process's event loop.
const code = await new Promise((resolve) => {
  // The gateway forwards with a key; the scripted upstream ignores it, so a placeholder does.
  const placeholder = 'scripted-upstream-ignores-keys';
  const env = {
    ...process.env,
    CRUCIBLE_AGENT_CACHE: process.env.CRUCIBLE_AGENT_CACHE ?? join(root, 'node_modules', '.cache', 'crucible-agents'),
    ANTHROPIC_API_KEY: placeholder,
    OPENAI_API_KEY: placeholder,
    GEMINI_API_KEY: placeholder,
  };
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env });
  child.on('exit', (status) => resolve(status ?? 1));
});
await upstream.close();
rmSync(state, { recursive: true, force: true });
process.exitCode = code;
