#!/usr/bin/env node
/**
 * Moves the cassettes of a directory recorded before cassettes had folders (one flat file per
 * session, `task%2Fagent%2F0.jsonl`) to the folder layout (`task/agent/0.jsonl`,
 * src/infra/gateway/cassette.ts). Replay reads both, so this is for people browsing a directory; it was
 * run once on examples/cassettes. A key with more than three parts is left flat: its agent name
 * may hold `/`, and only the flat name says where the parts split.
 *
 *   npm run build && node scripts/migrate-cassettes.mjs DIR...
 */
import { mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cassettePath } from '../dist/infra/gateway/cassette.js';

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: node scripts/migrate-cassettes.mjs DIR... (a directory that holds flat task%2Fagent%2F0.jsonl cassettes)');
  process.exit(2);
}
for (const dir of dirs) {
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl') && n.includes('%2F'))) {
    const from = join(dir, name);
    const key = decodeURIComponent(name.slice(0, -'.jsonl'.length));
    const header = JSON.parse(readFileSync(from, 'utf8').split('\n', 1)[0] ?? '{}');
    if (header.key !== key) {
      console.error(`skip ${from}: its header names key ${JSON.stringify(header.key)}, not ${JSON.stringify(key)}`);
      continue;
    }
    const parts = key.split('/');
    if (parts.length !== 3) {
      console.error(`skip ${from}: ${parts.length} parts, not <task>/<agent>/<trial> (replay still reads it)`);
      continue;
    }
    const to = cassettePath(dir, parts);
    mkdirSync(dirname(to), { recursive: true });
    renameSync(from, to);
    console.log(`${from} -> ${to}`);
  }
}
