#!/usr/bin/env node
// What a sandboxed command costs, per executor, side by side in one run (interleaved rounds):
//   start:     the first command of a fresh executor (docker: creating and starting the phase's
//              container; bwrap and local have nothing to start), then `close()`
//   true:      each of --commands `true` commands in that executor, one after another
//   node -e 0: a Node start inside the sandbox, median of 5 per round
// Usage: npm run build && node bench/sandbox.mjs [--rounds 3] [--commands 50] [--kinds local,bwrap,docker]
// Medians over the rounds (the per-command figures over every command of every round); ratios are
// against local, which runs the command directly on the host.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { createExecutor } = await import(join(root, 'dist', 'sandbox', 'index.js'));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option('rounds', '3'));
const commands = Number(option('commands', '50'));
const kinds = option('kinds', 'local,bwrap,docker').split(',');
const scratch = mkdtempSync(join(tmpdir(), 'crucible-bench-sandbox-'));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function time(fn) {
  const started = process.hrtime.bigint();
  const result = await fn();
  if (result && result.exitCode !== 0) throw new Error(`benchmark command failed: ${JSON.stringify(result)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function round(kind, index) {
  const dir = join(scratch, `${kind}-${index}`);
  const layout = { writable: [join(dir, 'ws')], hidden: [], readOnly: [], home: join(dir, 'home'), tmp: join(dir, 'tmp') };
  for (const path of [...layout.writable, layout.home, layout.tmp]) mkdirSync(path, { recursive: true });
  const executor = createExecutor(kind, layout);
  const run = (argv) => executor.exec({ argv, cwd: layout.writable[0], timeoutMs: 60_000, network: 'none' });
  try {
    const start = await time(() => run(['true']));
    const each = [];
    for (let i = 0; i < commands; i++) each.push(await time(() => run(['true'])));
    const node = [];
    for (let i = 0; i < 5; i++) node.push(await time(() => run(['node', '-e', '0'])));
    const close = await time(() => executor.close());
    return { start, each, node, close };
  } finally {
    await executor.close();
  }
}

const samples = Object.fromEntries(kinds.map((kind) => [kind, { start: [], each: [], node: [], close: [] }]));
// One warm-up round each (page cache, the docker host image, bwrap's first start), not counted.
for (const kind of kinds) await round(kind, 'warm');
for (let i = 0; i < rounds; i++) {
  for (const kind of kinds) {
    const result = await round(kind, i);
    samples[kind].start.push(result.start);
    samples[kind].each.push(...result.each);
    samples[kind].node.push(median(result.node));
    samples[kind].close.push(result.close);
  }
}

const row = (kind) => ({
  start: median(samples[kind].start),
  each: median(samples[kind].each),
  node: median(samples[kind].node),
  close: median(samples[kind].close),
});
const base = kinds.includes('local') ? row('local') : undefined;
const ratio = (value, of) => (base ? ` (${(value / base[of]).toFixed(1)}×)` : '');
console.log(`median of ${rounds} rounds, ${commands} \`true\` per round, node ${process.version}; (×) = against local`);
console.log('| executor | start: first command ms | per `true` ms | `node -e 0` ms | close ms |');
console.log('|---|---:|---:|---:|---:|');
for (const kind of kinds) {
  const r = row(kind);
  console.log(
    `| ${kind} | ${r.start.toFixed(0)}${ratio(r.start, 'start')} | ${r.each.toFixed(1)}${ratio(r.each, 'each')} | ${r.node.toFixed(0)}${ratio(r.node, 'node')} | ${r.close.toFixed(0)} |`,
  );
}
rmSync(scratch, { recursive: true, force: true });
