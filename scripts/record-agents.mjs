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
import { join } from 'node:path';
import { recordCassettes, ROOT } from './record-cassettes.mjs';
import { startScriptedAgentUpstream } from './scripted-agent-upstream.mjs';

const AGENTS = ['claude-code', 'codex', 'qwen-code', 'gemini-cli', 'opencode'];

process.exitCode = await recordCassettes({
  cassettes: join(ROOT, 'examples', 'cassettes', 'agents'),
  upstream: await startScriptedAgentUpstream(),
  runArgs: (baseUrl) => [
    join(ROOT, 'examples', 'tasks.yaml'),
    ...AGENTS.flatMap((name) => ['--agent', name]),
    ...['--base-url', `anthropic=${baseUrl}`, '--base-url', `openai=${baseUrl}/v1`, '--base-url', `gemini=${baseUrl}`],
  ],
  keys: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'],
  env: { CRUCIBLE_AGENT_CACHE: process.env.CRUCIBLE_AGENT_CACHE ?? join(ROOT, 'node_modules', '.cache', 'crucible-agents') },
});
