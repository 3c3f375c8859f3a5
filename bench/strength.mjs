#!/usr/bin/env node
// The cost of `validate --strength` per task against grading the same mutants by hand (the sides
// alternated round by round, several rounds, min and median, the load printed):
//   plain:     `crucible validate <tasks> --task <id> --runs 1 -j 1 --json` in a fresh state
//              directory: one nop and one oracle attempt (what --strength adds to).
//   strength:  the same with `--strength --max-mutants M`, in a fresh state directory (no cache):
//              the same two attempts, and one attempt per mutant in the sandbox. It must exit 0 and
//              report a strength for the task, or the bench stops.
//   raw:       the same mutants (the built mutant generator, same --max-mutants and seed) by hand,
//              unsandboxed, in a clean environment (PATH, HOME, TMPDIR, LANG, TERM only): the
//              repo copied and set up once; then per mutant a fresh `cp -a` of that tree, `git apply`
//              of the mutant, the tests (and held-out tests) once. Every exit status is checked: copy,
//              setup and apply must succeed; a test command must run (exit < 126 and a JUnit report).
// The table's "per mutant" columns are (strength − plain) / mutants against raw / mutants.
// Usage: npm run build && node bench/strength.mjs [--rounds 3] [--max-mutants 8] [--task ID]...
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { answerHelp, loadLine, median, min, nowMs } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const { mutantsOf } = await import(join(root, 'dist', 'features', 'strength', 'index.js'));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option('rounds', '3'));
const maxMutants = Number(option('max-mutants', '8'));
const onlyTasks = args.flatMap((a, i) => (args[i - 1] === '--task' ? [a] : []));
const tasksFile = join(root, 'examples', 'tasks.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'crucible-bench-strength-'));

function cleanEnv(dir, extra = {}) {
  for (const d of ['home', 'tmp']) mkdirSync(join(dir, d), { recursive: true });
  return { PATH: process.env.PATH, HOME: join(dir, 'home'), TMPDIR: join(dir, 'tmp'), LANG: 'C.UTF-8', TERM: 'dumb', ...extra };
}

function mustSucceed(argv, cwd, env, what, input) {
  const r = spawnSync(argv[0], argv.slice(1), { cwd, env, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
  if (r.error || r.status !== 0) throw new Error(`raw ${what} failed (exit ${r.status ?? r.signal}): ${(r.stderr ?? '').toString().trim().slice(0, 300)}`);
}

function runTests(command, ws, dir, label) {
  const report = join(dir, `${label}.xml`);
  const r = spawnSync('sh', ['-c', command], { cwd: ws, env: cleanEnv(dir, { CRUCIBLE_JUNIT: report }), stdio: ['ignore', 'ignore', 'pipe'] });
  const ran = r.status !== null && r.status < 126 && existsSync(report) && statSync(report).size > 0;
  if (!ran) throw new Error(`raw tests (${label}) did not run (exit ${r.status ?? r.signal}): ${r.stderr.toString().trim().slice(0, 300)}`);
}

function rawSide(task, mutants, dir) {
  mkdirSync(dir, { recursive: true });
  const env = cleanEnv(dir);
  const prepared = join(dir, 'prepared');
  mustSucceed(['cp', '-a', resolve(dirname(tasksFile), task.repo.path), prepared], dir, env, 'copy');
  const tools = join(dir, 'tools');
  const setupEnv = cleanEnv(dir, { npm_config_cache: join(tools, 'npm'), PIP_CACHE_DIR: join(tools, 'pip'), XDG_CACHE_HOME: tools, CI: 'true' });
  for (const command of task.setup ?? []) mustSucceed(['sh', '-c', command], prepared, setupEnv, `setup ${command}`);
  mutants.forEach((m, k) => {
    const ws = join(dir, `ws-${k}`);
    mustSucceed(['cp', '-a', prepared, ws], dir, env, 'copy');
    mustSucceed(['git', 'apply', '--whitespace=nowarn', '-'], ws, env, `apply mutant ${m.id}`, m.patch);
    runTests(task.tests.command, ws, dir, `m${k}`);
    if (task.held_out?.command) {
      mustSucceed(['cp', '-a', `${resolve(dirname(tasksFile), task.held_out.path)}/.`, ws], dir, env, 'held-out copy');
      runTests(task.held_out.command, ws, dir, `m${k}-held-out`);
    }
    rmSync(ws, { recursive: true, force: true });
  });
}

function validateSide(id, dir, strength) {
  const argv = [cli, 'validate', tasksFile, '--task', id, '--runs', '1', '--concurrency', '1', '--out', dir, '--json'];
  if (strength) argv.push('--strength', '--max-mutants', String(maxMutants));
  const r = spawnSync('node', argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    report = undefined;
  }
  if (r.status !== 0 || report?.valid !== true || (strength && report.strength?.[0]?.strength === undefined))
    throw new Error(`crucible validate${strength ? ' --strength' : ''} failed (exit ${r.status ?? r.signal}): ${r.stderr.trim().slice(-600)}`);
}

function timed(fn) {
  const started = nowMs();
  fn();
  return nowMs() - started;
}

const doc = parse(readFileSync(tasksFile, 'utf8'));
const loadBefore = loadLine();
const rows = [];
for (const task of doc.tasks.filter((t) => (onlyTasks.length === 0 ? ['js-slugify', 'py-median'].includes(t.id) : onlyTasks.includes(t.id)))) {
  const oracle = readFileSync(resolve(dirname(tasksFile), task.oracle.patch), 'utf8');
  const mutants = mutantsOf(oracle, { max: maxMutants, seed: 1 }).mutants;
  const sides = [
    ['plain', (dir) => validateSide(task.id, dir, false)],
    ['strength', (dir) => validateSide(task.id, dir, true)],
    ['raw', (dir) => rawSide(task, mutants, dir)],
  ];
  const times = Object.fromEntries(sides.map(([name]) => [name, []]));
  // One uncounted warm-up per side: page cache, npm's and git's caches.
  for (const [name, fn] of sides) {
    fn(join(scratch, `${name}-warm`));
    rmSync(join(scratch, `${name}-warm`), { recursive: true, force: true });
  }
  for (let i = 0; i < rounds; i++) {
    // Alternated: the order reverses every round, so a drift in load falls on every side alike.
    for (const [name, fn] of i % 2 === 0 ? sides : [...sides].reverse()) {
      const dir = join(scratch, `${name}-${i}`);
      times[name].push(timed(() => fn(dir)));
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const cell = (xs) => `${min(xs).toFixed(0)} / ${median(xs).toFixed(0)}`;
  const perMutant = (median(times.strength) - median(times.plain)) / mutants.length;
  const rawPer = median(times.raw) / mutants.length;
  rows.push([
    task.id,
    mutants.length,
    cell(times.plain),
    cell(times.strength),
    cell(times.raw),
    perMutant.toFixed(0),
    rawPer.toFixed(0),
    (perMutant / rawPer).toFixed(2),
  ]);
}
rmSync(scratch, { recursive: true, force: true });
console.log(`${rounds} rounds per side, alternated, --max-mutants ${maxMutants}, sandbox bwrap, node ${process.version}`);
console.log(`before: ${loadBefore}`);
console.log(`after:  ${loadLine()}`);
console.log(
  '| task | mutants | validate ms min / median | validate --strength ms min / median | by hand ms min / median | --strength per mutant ms | by hand per mutant ms | ratio |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
