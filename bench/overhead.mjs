#!/usr/bin/env node
// Crucible's cost per run against the raw commands doing the same work, side by side (the sides
// alternated round by round, several rounds, min and median, the load printed):
//   crucible:  `crucible run <tasks> --agent nop --task <id> --runs N -j 1 --json` in a fresh state
//              directory, as it runs by default (preflight, baseline tests once per task, the
//              prepared-tree cache); it must finish with no ERROR verdict and exit 0 or 1, or the
//              bench stops.
//   raw:       what that run does, by hand, unsandboxed, in a clean environment like the sandbox's
//              (PATH, HOME, TMPDIR, LANG, TERM only): cp -a the repo; git init, add, commit; the
//              task's setup once; the tests (and held-out tests) once at the baseline, in a fresh
//              copy; then per attempt a fresh copy of the post-setup tree and the tests (and
//              held-out tests) once more. Every command's exit status is checked: setup and git
//              must succeed, a test command must run (exit < 126 and, for JUnit tasks, a report).
//   floor:     the test command alone (and held-out tests), run in place in a tree prepared once
//              before the rounds (copy and setup not timed): at the baseline, then once per
//              attempt. What an attempt cannot cost less than, whatever gives it its tree.
// Usage: npm run build && node bench/overhead.mjs [--rounds 5] [--trials 1] [--files 20000]
//        [--sandbox bwrap|local|docker] [--task ID]... [--against DIR]
// --task ID: only this task (repeatable); --files 0 skips the generated repo; --files 20000,200000
// measures a generated repo of each size (the 200,000-file case: --files 200000 --task large).
// --against DIR: also times another built checkout (DIR/dist/cli/main.js) in the same rounds,
// alternated with this one, and prints this build's median over that one's.
// Also prints start-up alone (`node -e 0` against `crucible --version`), and each attempt's own
// prepare time (timings.prepareMs), the part the task's shared baseline changes.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { answerHelp, loadLine, median, min, nowMs } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const rounds = Number(option('rounds', '5'));
const fileCounts = option('files', '20000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const sandbox = option('sandbox', 'bwrap');
const trials = Number(option('trials', '1'));
const against = option('against', undefined);
const onlyTasks = args.flatMap((a, i) => (args[i - 1] === '--task' ? [a] : []));
const againstCli = against === undefined ? undefined : join(resolve(against), 'dist', 'cli', 'main.js');
const scratch = mkdtempSync(join(tmpdir(), 'crucible-bench-'));

function generateLargeRepo(fileCount) {
  const dir = join(scratch, `large-${fileCount}`, 'repo');
  for (let i = 0; i < fileCount; i++) {
    const sub = join(dir, 'src', `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `mod${i % 100}.js`), `export const value${i} = ${i};\n// ${'x'.repeat(200)}\n`);
  }
  mkdirSync(join(dir, 'test'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(
    join(dir, 'test', 'smoke.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert';\ntest('is fixed', () => assert.ok(process.env.FIXED));\ntest('still works', () => {});\n",
  );
  const tasks = join(scratch, `large-${fileCount}`, 'tasks.yaml');
  writeFileSync(
    tasks,
    `tasks:\n  - id: large\n    repo: { path: repo }\n    instruction: set FIXED\n    tests:\n      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/smoke.test.mjs\n      fail_to_pass: [is fixed]\n`,
  );
  return tasks;
}

/** The sandbox's environment (src/infra/sandbox/env.ts): built from nothing, never the host's. */
function cleanEnv(dir, extra = {}) {
  for (const d of ['home', 'tmp']) mkdirSync(join(dir, d), { recursive: true });
  return { PATH: process.env.PATH, HOME: join(dir, 'home'), TMPDIR: join(dir, 'tmp'), LANG: 'C.UTF-8', TERM: 'dumb', ...extra };
}

function run(argv, cwd, env, what) {
  const r = spawnSync(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  return r;
}

function mustSucceed(argv, cwd, env, what) {
  const r = run(argv, cwd, env, what);
  if (r.status !== 0) throw new Error(`raw ${what} failed (exit ${r.status ?? r.signal}): ${r.stderr.toString().trim().slice(0, 300)}`);
}

/** A test command under nop fails its fail-to-pass tests on purpose: it must still have run. */
function runTests(command, format, ws, dir, label) {
  const report = join(dir, `${label}.xml`);
  const r = run(['sh', '-c', command], ws, cleanEnv(dir, { CRUCIBLE_JUNIT: report }), `tests ${label}`);
  const ran = r.status !== null && r.status < 126 && ((format ?? 'junit') !== 'junit' || (existsSync(report) && statSync(report).size > 0));
  if (!ran) throw new Error(`raw tests (${label}) did not run (exit ${r.status ?? r.signal}): ${r.stderr.toString().trim().slice(0, 300)}`);
}

/** `dir/name`: a copy of the task's repo with its setup run in it. */
function copyAndSetUp(task, taskFileDir, dir, name) {
  mkdirSync(dir, { recursive: true });
  const tree = join(dir, name);
  mustSucceed(['cp', '-a', resolve(taskFileDir, task.repo.path), tree], dir, cleanEnv(dir), 'copy');
  const tools = join(dir, 'tools');
  const setupEnv = cleanEnv(dir, { npm_config_cache: join(tools, 'npm'), PIP_CACHE_DIR: join(tools, 'pip'), XDG_CACHE_HOME: tools, CI: 'true' });
  for (const command of task.setup ?? []) mustSucceed(['sh', '-c', command], tree, setupEnv, `setup ${command}`);
  return tree;
}

/** The task's tests, and held-out tests, once in `ws`. */
function testsIn(task, ws, dir, label) {
  runTests(task.tests.command, task.tests.format, ws, dir, label);
  if (task.held_out?.command) runTests(task.held_out.command, task.held_out.format, ws, dir, `${label}-held-out`);
}

function rawRun(task, taskFileDir, dir) {
  const prepared = copyAndSetUp(task, taskFileDir, dir, 'prepared');
  const env = cleanEnv(dir);
  mustSucceed(['git', 'init', '-q'], prepared, env, 'git init');
  mustSucceed(['git', 'add', '-A'], prepared, env, 'git add');
  // No background `gc --auto`: it would repack .git while the copies below read it.
  mustSucceed(['git', '-c', 'gc.auto=0', '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'baseline'], prepared, env, 'git commit');
  const testsOnce = (label) => {
    const ws = join(dir, `ws-${label}`);
    mustSucceed(['cp', '-a', prepared, ws], dir, env, 'copy');
    testsIn(task, ws, dir, label);
  };
  testsOnce('baseline');
  for (let t = 0; t < trials; t++) testsOnce(`after-${t}`);
}

/** The floor: the tests at the baseline and once per attempt, in place in `tree` (prepared once, untimed), nothing else. */
function floorRun(task, tree, dir) {
  mkdirSync(dir, { recursive: true });
  testsIn(task, tree, dir, 'baseline');
  for (let t = 0; t < trials; t++) testsIn(task, tree, dir, `after-${t}`);
}

function crucibleRun(tasksFile, id, dir, entry) {
  const argv = [entry, 'run', tasksFile, '--agent', 'nop', '--task', id, '--sandbox', sandbox, '--out', dir, '--quiet', '--json'];
  const r = spawnSync('node', [...argv, '--runs', String(trials), '--concurrency', '1'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  let summary;
  try {
    summary = JSON.parse(r.stdout);
  } catch {
    summary = undefined;
  }
  const errors = summary?.counts?.ERROR ?? 0;
  if ((r.status !== 0 && r.status !== 1) || summary === undefined || errors > 0 || summary.executed !== trials) {
    throw new Error(`crucible run failed (exit ${r.status ?? r.signal}, ${errors} ERROR, ${summary?.executed} executed): ${r.stderr.trim().slice(-600)}`);
  }
  return prepareTimes(dir);
}

/** Each attempt's own prepare time (timings.prepareMs in its attempt.json), the part an attempt spends before its agent. */
function prepareTimes(stateDir) {
  const runs = join(stateDir, 'runs');
  return readdirSync(runs).flatMap((run) => {
    const attempts = join(runs, run, 'attempts');
    return existsSync(attempts) ? readdirSync(attempts).map((a) => JSON.parse(readFileSync(join(attempts, a, 'attempt.json'), 'utf8')).timings.prepareMs) : [];
  });
}

function timed(fn) {
  const started = nowMs();
  fn();
  return nowMs() - started;
}

function bench(label, tasksFile) {
  const doc = parse(readFileSync(tasksFile, 'utf8'));
  const rows = [];
  for (const raw of doc.tasks.filter((t) => onlyTasks.length === 0 || onlyTasks.includes(t.id))) {
    const task = { ...raw, setup: raw.setup ?? doc.defaults?.setup };
    const tree = copyAndSetUp(task, dirname(tasksFile), join(scratch, `floor-tree-${task.id}`), 'tree');
    const sides = [
      ['floor', (i) => floorRun(task, tree, join(scratch, `floor-${task.id}-${i}`))],
      ['raw', (i) => rawRun(task, dirname(tasksFile), join(scratch, `raw-${task.id}-${i}`))],
      ['crucible', (i) => crucibleRun(tasksFile, task.id, join(scratch, `state-${task.id}-${i}`), cli)],
      ...(againstCli ? [['against', (i) => crucibleRun(tasksFile, task.id, join(scratch, `against-${task.id}-${i}`), againstCli)]] : []),
    ];
    const times = Object.fromEntries(sides.map(([name]) => [name, []]));
    const prepares = Object.fromEntries(sides.map(([name]) => [name, []]));
    // Round 'warm' fills the page cache, npm's and git's caches for every side; not counted.
    for (const [, fn] of sides) fn('warm');
    for (let i = 0; i < rounds; i++) {
      // Alternated: the order reverses every round, so a drift in load hits every side alike.
      for (const [name, fn] of i % 2 === 0 ? sides : [...sides].reverse()) {
        let prepared;
        times[name].push(timed(() => (prepared = fn(i))));
        if (Array.isArray(prepared)) prepares[name].push(...prepared);
      }
      for (const [name] of sides) rmSync(join(scratch, `${name === 'crucible' ? 'state' : name}-${task.id}-${i}`), { recursive: true, force: true });
    }
    rmSync(join(scratch, `floor-tree-${task.id}`), { recursive: true, force: true });
    const row = [label, task.id, ...['floor', 'raw', 'crucible'].map((s) => `${min(times[s]).toFixed(0)} / ${median(times[s]).toFixed(0)}`)];
    row.push((median(times.crucible) / median(times.raw)).toFixed(2), (min(times.crucible) / min(times.raw)).toFixed(2));
    row.push((median(times.crucible) / median(times.floor)).toFixed(2), `${(median(times.crucible) - median(times.floor)).toFixed(0)}`);
    if (againstCli)
      row.push(`${min(times.against).toFixed(0)} / ${median(times.against).toFixed(0)}`, (median(times.crucible) / median(times.against)).toFixed(2));
    row.push(['crucible', ...(againstCli ? ['against'] : [])].map((s) => `${min(prepares[s]).toFixed(0)} / ${median(prepares[s]).toFixed(0)}`).join(' vs '));
    rows.push(row);
  }
  return rows;
}

/** Start-up alone: a bare `node -e 0` against `crucible --version`, alternated, 3 × rounds each. */
function startup() {
  const times = { node: [], crucible: [] };
  for (let i = 0; i < 3 * rounds; i++) {
    times.node.push(timed(() => execFileSync('node', ['-e', '0'])));
    times.crucible.push(timed(() => execFileSync('node', [cli, '--version'])));
  }
  return times;
}

const loadBefore = loadLine();
const start = startup();
const rows = [...bench('examples', join(root, 'examples', 'tasks.yaml')), ...fileCounts.flatMap((count) => bench(`${count} files`, generateLargeRepo(count)))];
console.log(`${rounds} rounds per side, alternated, ${trials} attempt(s) per run, sandbox=${sandbox}, node ${process.version}`);
console.log(`before: ${loadBefore}`);
console.log(`after:  ${loadLine()}`);
console.log(
  `start-up min / median: node -e 0 ${min(start.node).toFixed(0)} / ${median(start.node).toFixed(0)} ms, crucible --version ${min(start.crucible).toFixed(0)} / ${median(start.crucible).toFixed(0)} ms`,
);
if (againstCli) console.log(`against: ${againstCli}`);
console.log(
  `| set | task | floor ms min / median | raw ms min / median | crucible ms min / median | crucible / raw (medians) | crucible / raw (mins) | crucible / floor (medians) | crucible - floor ms (medians) |${againstCli ? ' against ms min / median | this / against |' : ''} prepare per attempt ms min / median${againstCli ? ' (this vs against)' : ''} |`,
);
console.log(`|---|---|---:|---:|---:|---:|---:|---:|---:|${againstCli ? '---:|---:|' : ''}---:|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
rmSync(scratch, { recursive: true, force: true });
