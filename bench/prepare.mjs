#!/usr/bin/env node
// Per-attempt prepare time of a task whose setup installs a large node_modules, before and after the
// prepared-tree cache, side by side in one state directory (one npm cache, warmed first):
//   before:  crucible run … --no-prepare-cache   (setup runs in every attempt)
//   after:   crucible run …                       (setup runs once, in the first run's preflight; attempts copy the tree)
// The two sides alternate, one single-attempt run each, so load on the machine falls on both alike.
// Usage: npm run build && node bench/prepare.mjs [--runs 5] [--package tape@5.7.5] [--sandbox bwrap|local]
//        node bench/prepare.mjs --taskset examples/real/tasks.yaml --task qs-depth-remainder --runs 3
// The setup is `npm install` of a pinned package from the npm registry (tape@5.7.5: 126 packages,
// about 4,300 files). Prepare time is each attempt's timings.prepareMs (copy, setup or the prepared
// tree's copy, baseline commit and pristine copy; over the preflight's shared tree, its one copy),
// read from attempt.json. The load average is printed from before the first run and after the last.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHelp, loadLine } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const runs = Number(option('runs', '5'));
const pkg = option('package', 'tape@5.7.5');
const sandbox = option('sandbox', 'bwrap');
// --taskset FILE --task ID measures a task of your own (e.g. examples/real/tasks.yaml) instead.
const taskset = option('taskset', undefined);
const taskId = option('task', undefined);
const scratch = mkdtempSync(join(tmpdir(), 'crucible-bench-prepare-'));
const state = join(scratch, 'state');

function writeTask() {
  const repo = join(scratch, 'repo');
  mkdirSync(join(repo, 'test'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), '{ "name": "bench-prepare", "version": "1.0.0", "type": "module" }\n');
  writeFileSync(
    join(repo, 'test', 'smoke.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { existsSync } from 'node:fs';\ntest('is fixed', () => assert.ok(process.env.FIXED));\ntest('deps installed', () => assert.ok(existsSync('node_modules')));\n",
  );
  const tasks = join(scratch, 'tasks.yaml');
  writeFileSync(
    tasks,
    [
      'tasks:',
      '  - id: big-deps',
      '    repo: { path: repo }',
      '    instruction: set FIXED',
      `    setup: ["npm install --no-audit --no-fund --no-save --ignore-scripts ${pkg}"]`,
      '    tests:',
      '      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/smoke.test.mjs',
      '      fail_to_pass: [is fixed]',
      '',
    ].join('\n'),
  );
  return tasks;
}

function run(tasks, trials, extra) {
  const out = spawnSync(
    process.execPath,
    [
      cli,
      'run',
      tasks,
      ...(taskId ? ['--task', taskId] : []),
      '--agent',
      'nop',
      '--runs',
      String(trials),
      '-j',
      '1',
      '--no-baseline-tests',
      '--sandbox',
      sandbox,
      '--out',
      state,
      '--json',
      ...extra,
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const summary = JSON.parse(out.stdout);
  const runDir = join(state, 'runs', summary.runId);
  const attempts = readdirSync(join(runDir, 'attempts')).map((id) => JSON.parse(readFileSync(join(runDir, 'attempts', id, 'attempt.json'), 'utf8')));
  for (const a of attempts) if (a.verdict === 'ERROR') throw new Error(`attempt ${a.attemptId}: ${a.message}`);
  return { attempts, stderr: out.stderr };
}

const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms) => `${(ms / 1000).toFixed(2)}s`;

const loadBefore = loadLine();
try {
  const tasks = taskset ? resolve(taskset) : writeTask();
  // Warm the npm cache (the tool cache every attempt shares), so both sides install from it.
  run(tasks, 1, ['--no-prepare-cache']);
  rmSync(join(state, 'cache', 'prepared'), { recursive: true, force: true });
  // The sides alternate, one attempt each, so a change in the machine's load falls on both alike.
  const before = [];
  const afterAttempts = [];
  let afterStderr = '';
  for (let i = 0; i < runs; i++) {
    before.push(...run(tasks, 1, ['--no-prepare-cache']).attempts);
    const next = run(tasks, 1, []);
    afterAttempts.push(...next.attempts);
    afterStderr += next.stderr;
  }
  const after = { attempts: afterAttempts };
  const built = (afterStderr.match(/built prepared tree/g) ?? []).length;
  const reused = (afterStderr.match(/reused prepared tree/g) ?? []).length;
  const files = Number(
    spawnSync('sh', ['-c', `find ${join(state, 'cache', 'prepared')} -path '*/node_modules/*' -type f | wc -l`], { encoding: 'utf8' }).stdout.trim(),
  );

  const row = (name, xs, part) => {
    const prepare = xs.map((a) => a.timings.prepareMs);
    const parts = ['copyMs', part, 'baselineCommitMs'].map((k) => s(mean(xs.map((a) => a.timings[k] ?? 0)))).join(' · ');
    return `| ${name} | ${xs.length} | ${s(mean(prepare))} | ${s(median(prepare))} | ${parts} |`;
  };
  console.log(
    taskset
      ? `task: ${taskId ?? '(every task)'} of ${taskset} (${files} files in node_modules), sandbox ${sandbox}, ${runs} attempts per side`
      : `task: setup = npm install ${pkg} (${files} files in node_modules), sandbox ${sandbox}, ${runs} attempts per side`,
  );
  console.log(`before: ${loadBefore}`);
  console.log(`after:  ${loadLine()}`);
  console.log('');
  console.log('| per attempt | attempts | prepare (mean) | prepare (median) | parts (mean): repo copy · setup or tree copy · baseline commit |');
  console.log('|---|---|---|---|---|');
  console.log(row('before: setup in every attempt (--no-prepare-cache)', before, 'setupMs'));
  console.log(row('after: prepared tree reused', after.attempts, 'setupMs'));
  console.log('');
  console.log(`after: prepared tree built ${built}× (in the preflight), reused ${reused}×`);
  console.log(
    `ratio (before / after, mean per-attempt prepare): ${(mean(before.map((a) => a.timings.prepareMs)) / mean(after.attempts.map((a) => a.timings.prepareMs))).toFixed(1)}x`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
