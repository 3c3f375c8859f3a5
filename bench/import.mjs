#!/usr/bin/env node
// The library's import cost against bare Node: `node -e 0` and `import('crucible-harness')` (the
// root entry, by the package's own name through package.json `exports`), each a fresh process,
// alternated (the order reverses every round), exit status checked; plus one subpath entry per
// round for reference. Run after `npm run build` (or `npx tsc -p tsconfig.build.json`).
//
//   node bench/import.mjs --rounds 30
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { answerHelp, loadLine, median, min, nowMs } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' }, subpath: { type: 'string', default: 'config' } } });
const rounds = Number(values.rounds);
const name = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).name;

const sides = {
  'bare node (node -e 0)': ['-e', '0'],
  [`import('${name}')`]: ['--input-type=module', '-e', `await import('${name}')`],
  [`import('${name}/${values.subpath}')`]: ['--input-type=module', '-e', `await import('${name}/${values.subpath}')`],
};

function time(args) {
  const start = nowMs();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const ms = nowMs() - start;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

console.log(loadLine());
const names = Object.keys(sides);
for (const n of names) time(sides[n]); // one uncounted warm-up each: the page cache
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const n of order) samples[n].push(time(sides[n]));
}
const floor = median(samples[names[0]]);
console.log(`${rounds} rounds, ms as min / median, ratio = median / bare node's median`);
for (const n of names)
  console.log(
    `${n.padEnd(44)} ${min(samples[n]).toFixed(1).padStart(7)} / ${median(samples[n]).toFixed(1).padStart(7)}   ${(median(samples[n]) / floor).toFixed(2)}x`,
  );
console.log(loadLine());
