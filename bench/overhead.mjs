#!/usr/bin/env node
// Crucible's per-attempt overhead against the raw commands it wraps, measured side by side:
//   crucible:  `crucible run <tasks> --agent nop --task <id>` (one attempt, bwrap unless --sandbox)
//   raw:       cp -a <repo> && git init && git add -A && git commit && <setup> && <test command>
// Usage: npm run build && node bench/overhead.mjs [--runs 5] [--files 20000] [--sandbox bwrap|local] [--baseline-tests] [--trials N] [--against DIR] [--task ID]
// It also times start-up alone: `node -e 0` against `crucible --version`.
// --task ID: only this task (repeatable; with --files 0), e.g. the smallest example, js-slugify.
// --against DIR: also times another built checkout of Crucible (DIR/dist/cli/main.js), interleaved
// with this one, and prints this build's time over that one's (e.g. before and after a change).
// --trials N: each side does N attempts per measurement (crucible: one process, --runs N -j 1), which
// spreads Crucible's fixed start-up cost (Node, module loading, history, reports) over N attempts.
// The raw side runs the tests once, so by default Crucible runs without its extra baseline test run
// (--no-baseline-tests); --baseline-tests measures Crucible as it runs by default.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const runs = Number(option('runs', '5'));
const fileCount = Number(option('files', '20000'));
const sandbox = option('sandbox', 'bwrap');
const scratch = mkdtempSync(join(tmpdir(), 'crucible-bench-'));
const baselineTests = args.includes('--baseline-tests');
const trials = Number(option('trials', '1'));
const against = option('against', undefined);
const onlyTasks = args.flatMap((a, i) => (args[i - 1] === '--task' ? [a] : []));
const againstCli = against === undefined ? undefined : join(resolve(against), 'dist', 'cli', 'main.js');

function generateLargeRepo() {
  const dir = join(scratch, 'large', 'repo');
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
  const tasks = join(scratch, 'large', 'tasks.yaml');
  writeFileSync(
    tasks,
    `tasks:\n  - id: large\n    repo: { path: repo }\n    instruction: set FIXED\n    tests:\n      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/smoke.test.mjs\n      fail_to_pass: [is fixed]\n`,
  );
  return tasks;
}

function time(fn) {
  const started = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function sh(command, cwd, env = {}) {
  // Test commands fail on purpose under nop; only the work done counts, not the exit status.
  spawnSync('sh', ['-c', command], { cwd, env: { ...process.env, ...env }, stdio: 'ignore' });
}

function rawAttempt(task, taskFileDir, i) {
  for (let t = 0; t < trials; t++) rawOnce(task, taskFileDir, `${i}-${t}`);
}

function rawOnce(task, taskFileDir, i) {
  const ws = join(scratch, `raw-${task.id}-${i}`);
  execFileSync('cp', ['-a', resolve(taskFileDir, task.repo.path), ws]);
  sh('git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm baseline', ws);
  for (const command of task.setup ?? []) sh(command, ws);
  sh(task.tests.command, ws, { CRUCIBLE_JUNIT: join(scratch, `raw-${task.id}-${i}.xml`) });
}

function crucibleAttempt(tasksFile, id, i, entry = cli) {
  const extra = baselineTests ? [] : ['--no-baseline-tests'];
  const repeat = ['--runs', String(trials), '--concurrency', '1'];
  spawnSync(
    'node',
    [entry, 'run', tasksFile, '--agent', 'nop', '--task', id, '--sandbox', sandbox, '--out', join(scratch, `state-${id}-${i}`), '--quiet', ...repeat, ...extra],
    { stdio: 'ignore' },
  );
}

function bench(label, tasksFile) {
  const doc = parse(execFileSync('cat', [tasksFile], { encoding: 'utf8' }));
  const rows = [];
  for (const raw of doc.tasks.filter((t) => onlyTasks.length === 0 || onlyTasks.includes(t.id))) {
    const task = { ...raw, setup: raw.setup ?? doc.defaults?.setup };
    // Warm caches (page cache, npm cache, git cache) once for both sides.
    rawAttempt(task, dirname(tasksFile), 'warm');
    crucibleAttempt(tasksFile, task.id, 'warm');
    if (againstCli) crucibleAttempt(tasksFile, task.id, 'warm-against', againstCli);
    const rawTimes = [];
    const crucibleTimes = [];
    const againstTimes = [];
    for (let i = 0; i < runs; i++) {
      rawTimes.push(time(() => rawAttempt(task, dirname(tasksFile), i)));
      crucibleTimes.push(time(() => crucibleAttempt(tasksFile, task.id, i)));
      if (againstCli) againstTimes.push(time(() => crucibleAttempt(tasksFile, task.id, `against-${i}`, againstCli)));
    }
    const r = median(rawTimes);
    const c = median(crucibleTimes);
    const row = [label, task.id, r.toFixed(0), c.toFixed(0), (c / r).toFixed(2)];
    if (againstCli) {
      const a = median(againstTimes);
      row.push(a.toFixed(0), (c / a).toFixed(2));
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Start-up alone: a bare `node -e 0` against `crucible --version` (Node start plus the CLI's module
 * loading, nothing else), interleaved, median of 3 × --runs each.
 */
function startup() {
  const times = { node: [], crucible: [], against: [] };
  for (let i = 0; i < 3 * runs; i++) {
    times.node.push(time(() => spawnSync('node', ['-e', '0'], { stdio: 'ignore' })));
    times.crucible.push(time(() => spawnSync('node', [cli, '--version'], { stdio: 'ignore' })));
    if (againstCli) times.against.push(time(() => spawnSync('node', [againstCli, '--version'], { stdio: 'ignore' })));
  }
  return { node: median(times.node), crucible: median(times.crucible), against: againstCli ? median(times.against) : undefined };
}

const start = startup();
// --files 0 skips the generated repo.
const rows = [...bench('examples', join(root, 'examples', 'tasks.yaml')), ...(fileCount > 0 ? bench(`${fileCount} files`, generateLargeRepo()) : [])];
console.log(
  `median of ${runs} runs each, ${trials} attempt(s) per run, sandbox=${sandbox}, baseline tests ${baselineTests ? 'on' : 'off'}, node ${process.version}`,
);
console.log(
  `start-up: node -e 0 ${start.node.toFixed(0)} ms, crucible --version ${start.crucible.toFixed(0)} ms` +
    (start.against === undefined ? '' : `, against --version ${start.against.toFixed(0)} ms`),
);
if (againstCli) console.log(`against: ${againstCli}`);
console.log(`| set | task | raw ms | crucible ms | ratio |${againstCli ? ' against ms | this / against |' : ''}`);
console.log(`|---|---|---:|---:|---:|${againstCli ? '---:|---:|' : ''}`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
rmSync(scratch, { recursive: true, force: true });
