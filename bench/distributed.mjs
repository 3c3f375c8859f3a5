#!/usr/bin/env node
// Distributed runs on this machine: N synthetic attempts (tiny shell-tested tasks, the oracle agent)
// run locally with -j 1, 2 and 4, then through a real redis-server with 1, 2 and 4 `crucible worker`
// processes (concurrency 1 each). Prints wall time, throughput, and the coordinator's overhead per
// attempt: (wall time through the queue − the local run with as many attempts in flight) / N, which
// is what shipping the task set, the jobs, the result files and their verification cost; the
// parallel efficiency, T(1) / (n × T(n)) against the same mode's one-at-a-time row; and the
// coordinator's CPU time per attempt (user + system of the `crucible run` process and its children,
// from the shell's `times`: planning, preflight, shipping, verifying results, reports).
// Usage: npx tsc -p tsconfig.build.json && node bench/distributed.mjs [--tasks 6] [--runs 2]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHelp } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'crucible.js');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const TASKS = option('tasks', 6);
const RUNS = option('runs', 2);
const N = TASKS * RUNS;
const dir = mkdtempSync(join(tmpdir(), 'crucible-bench-dist-'));

function taskSet() {
  const repo = join(dir, 'set', 'repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'value.txt'), 'wrong\n');
  writeFileSync(
    join(repo, 'check.sh'),
    'if grep -q right value.txt; then f=""; else f="<failure/>"; fi\n' +
      'printf \'<testsuite name="s" tests="1"><testcase classname="check" name="fixed">%s</testcase></testsuite>\' "$f" > "$CRUCIBLE_JUNIT"\n[ -z "$f" ]\n',
  );
  writeFileSync(join(dir, 'set', 'fix.patch'), '--- a/value.txt\n+++ b/value.txt\n@@ -1 +1 @@\n-wrong\n+right\n');
  const tasks = Array.from(
    { length: TASKS },
    (_, i) =>
      `  - id: t${i + 1}\n    repo: { path: repo }\n    instruction: fix it\n    tests: { command: sh check.sh, fail_to_pass: [check::fixed] }\n    oracle: { patch: fix.patch }`,
  );
  const file = join(dir, 'set', 'tasks.yaml');
  writeFileSync(file, `tasks:\n${tasks.join('\n')}\n`);
  return file;
}

const freePort = () =>
  new Promise((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });

/** Runs the CLI; returns its wall time and the CPU time (user + system) of it and its children. */
function run(argv) {
  const started = performance.now();
  const script = '"$@"; s=$?; times >&2; exit $s';
  const r = spawnSync('sh', ['-c', script, 'sh', process.execPath, cli, ...argv], { encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`crucible ${argv.join(' ')} exited ${r.status}:\n${r.stderr.slice(-2000)}`);
  // `times` prints the shell's own times, then its children's: "0m1.234s 0m0.056s".
  const children = r.stderr.trim().split('\n').at(-1) ?? '';
  const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0);
  return { ms, cpuMs };
}

const file = taskSet();
const port = await freePort();
const url = `redis://127.0.0.1:${port}/0`;
const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir], { stdio: 'ignore' });
for (let i = 0; i < 100 && spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() !== 'PONG'; i++)
  await new Promise((r) => setTimeout(r, 50));

const base = ['run', file, '--agent', 'oracle', '--runs', String(RUNS), '-q'];
const rows = [];
const load = loadavg()[0];
try {
  // Warm the machine's caches (bwrap, node) so the first row is not penalised.
  run([...base, '--out', join(dir, 'warm'), '--runs', '1']);
  for (const j of [1, 2, 4]) {
    const { ms, cpuMs } = run([...base, '-j', String(j), '--out', join(dir, `local-${j}`)]);
    rows.push({ mode: `local -j ${j}`, inFlight: j, ms, cpuMs });
  }
  for (const n of [1, 2, 4]) {
    const workers = Array.from({ length: n }, (_, i) =>
      spawn(process.execPath, [cli, 'worker', '--queue', url, '--out', join(dir, `w${n}-${i}`)], { stdio: 'ignore', env: { ...process.env, CI: 'true' } }),
    );
    await new Promise((r) => setTimeout(r, 1500)); // the workers connect and look for runs
    try {
      const { ms, cpuMs } = run([...base, '--queue', url, '--out', join(dir, `queue-${n}`)]);
      rows.push({ mode: `queue, ${n} worker${n > 1 ? 's' : ''}`, inFlight: n, ms, cpuMs });
    } finally {
      for (const w of workers) w.kill('SIGTERM');
    }
  }
} finally {
  redis.kill('SIGTERM');
}

const localOf = new Map(rows.filter((r) => r.mode.startsWith('local')).map((r) => [r.inFlight, r.ms]));
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(`${N} attempts (${TASKS} tasks × ${RUNS} runs, oracle), ${cpus().length} cores, load average ${load.toFixed(2)} at start\n`);
const one = (mode) => rows.find((r) => r.inFlight === 1 && r.mode.startsWith(mode))?.ms;
console.log('| mode | attempts in flight | wall | throughput | parallel efficiency | coordinator CPU per attempt | overhead per attempt vs local |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  const queued = r.mode.startsWith('queue');
  const local = localOf.get(r.inFlight);
  const overhead = queued && local !== undefined ? `${((r.ms - local) / N / 1000).toFixed(2)} s` : '—';
  const t1 = one(queued ? 'queue' : 'local');
  const efficiency = t1 === undefined ? '—' : `${((100 * t1) / (r.inFlight * r.ms)).toFixed(0)}%`;
  const cpu = `${(r.cpuMs / N / 1000).toFixed(2)} s`;
  console.log(`| ${r.mode} | ${r.inFlight} | ${s(r.ms)} | ${((N / r.ms) * 60_000).toFixed(1)} attempts/min | ${efficiency} | ${cpu} | ${overhead} |`);
}
rmSync(dir, { recursive: true, force: true });
