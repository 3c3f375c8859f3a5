#!/usr/bin/env node
/**
 * Re-records examples/cassettes/quickstart: the built-in agent (openai:gpt-4.1-mini) on every
 * example task, its model traffic answered by scripts/scripted-upstream.mjs — a script, not a model
 * (read its header) — and recorded by the model gateway. Needs `npm run build` first; extra
 * arguments go to `crucible run` (e.g. --sandbox local).
 *
 *   node scripts/record-quickstart.mjs
 */
import { join } from 'node:path';
import { recordCassettes, ROOT } from './record-cassettes.mjs';
import { startScriptedUpstream } from './scripted-upstream.mjs';

process.exitCode = await recordCassettes({
  cassettes: join(ROOT, 'examples', 'cassettes', 'quickstart'),
  upstream: await startScriptedUpstream(),
  runArgs: (baseUrl) => [join(ROOT, 'examples', 'tasks.yaml'), '--model', 'openai:gpt-4.1-mini', '--base-url', baseUrl],
  keys: ['OPENAI_API_KEY'],
});
