#!/usr/bin/env node
// The run engine's own cost at scale: a synthetic plan of 1k, 5k and 10k attempts run through the
// real engine (plan, scheduler, attempt.json + checkpoint per attempt, SQLite history, statistics,
// summary.json) with an in-process fake in place of runAttempt that is recorded exactly as
// runAttempt records (its `record`: trace.jsonl, manifest, attempt.json written atomically), so
// only Crucible's overhead is measured, not git, sandboxes or tests. Each size runs in its own process, so peak RSS is per size.
// Then the finished run is resumed, which re-verifies every attempt.json hash and reuses them all.
// Usage: npm run bench:matrix   (or: npm run build && node bench/matrix.mjs [--sizes 1000,5000,10000] [--concurrency 4])
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { answerHelp, loadLine } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const AGENTS = ['agent-a', 'agent-b'];
const TRIALS = 10;
/** The engine's own record step (src/engine/attempt.ts), loaded by the child. */
let record;

if (args[0] === '--child') await child(Number(args[1]), Number(option('concurrency', '4')));
else parent();

function parent() {
  const sizes = option('sizes', '1000,5000,10000').split(',').map(Number);
  const concurrency = option('concurrency', '4');
  const rows = [];
  for (const size of sizes) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', String(size), '--concurrency', concurrency], { encoding: 'utf8' });
    if (r.status !== 0) {
      process.stderr.write(r.stderr);
      process.exit(1);
    }
    rows.push(JSON.parse(r.stdout));
  }
  const header = ['attempts', 'tasks', 'run s', 'attempts/s', 'stats s', 'resume s', 'peak RSS MB', 'heap MB'];
  const cells = rows.map((r) =>
    [
      r.attempts,
      r.tasks,
      r.runS.toFixed(2),
      Math.round(r.attemptsPerS),
      r.statsS.toFixed(2),
      r.resumeS.toFixed(2),
      r.peakRssMb.toFixed(0),
      r.heapMb.toFixed(0),
    ].map(String),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => v.padStart(widths[i])).join('  ');
  console.log(`node ${process.version}, concurrency ${concurrency}, ${AGENTS.length} agents × ${TRIALS} trials per task; ${loadLine()}`);
  console.log(line(header));
  for (const c of cells) console.log(line(c));
}

async function child(size, concurrency) {
  const { executeRun } = await import(pathToFileURL(join(root, 'dist', 'engine', 'index.js')).href);
  const { aggregateRun } = await import(pathToFileURL(join(root, 'dist', 'domain', 'stats', 'index.js')).href);
  ({ record } = await import(pathToFileURL(join(root, 'dist', 'engine', 'attempt.js')).href));
  const dir = await mkdtemp(join(tmpdir(), 'crucible-bench-matrix-'));
  try {
    const taskCount = Math.ceil(size / (AGENTS.length * TRIALS));
    const tasks = Array.from({ length: taskCount }, (_, i) => syntheticTask(dir, i));
    const options = {
      taskSetFile: 'synthetic.yaml',
      taskSetPath: join(dir, 'synthetic.yaml'),
      tasks,
      agents: AGENTS,
      trials: TRIALS,
      stateDir: join(dir, '.crucible'),
      settings: { sandbox: 'local' },
      concurrency,
      runAttempt: instantAttempt,
      resolveAgent: (spec) => ({ name: spec, run: async () => ({ stopReason: 'completed' }) }),
    };
    const started = performance.now();
    const { summary, attempts } = await executeRun(options);
    const runS = (performance.now() - started) / 1000;
    if (summary.executed !== taskCount * AGENTS.length * TRIALS) throw new Error(`executed ${summary.executed}`);

    const statsStarted = performance.now();
    aggregateRun(attempts);
    const statsS = (performance.now() - statsStarted) / 1000;
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;

    const resumeStarted = performance.now();
    const resumed = await executeRun({ ...options, resume: { runId: summary.runId } });
    const resumeS = (performance.now() - resumeStarted) / 1000;
    if (resumed.summary.reused !== summary.executed) throw new Error(`reused ${resumed.summary.reused}`);

    process.stdout.write(
      JSON.stringify({
        attempts: summary.executed,
        tasks: taskCount,
        runS,
        attemptsPerS: summary.executed / runS,
        statsS,
        resumeS,
        peakRssMb: process.resourceUsage().maxRSS / 1024,
        heapMb,
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function syntheticTask(dir, i) {
  return {
    id: `task-${String(i).padStart(4, '0')}`,
    version: '1',
    sourceFile: join(dir, 'synthetic.yaml'),
    repo: { kind: 'local', path: join(dir, 'repos', `repo-${i % 25}`) },
    instruction: `Fix bug number ${i}.`,
    setup: [],
    tests: { command: 'true', failToPass: [`t::test_${i}`], passToPass: 'all_others', testPaths: [] },
    policy: { preset: 'default', forbiddenPaths: [], allowedPaths: [], unsafeCommands: [], secrets: { paths: [], literals: [], presets: [] }, severities: {} },
    limits: { agentTimeoutMs: 60_000, testTimeoutMs: 60_000, setupTimeoutMs: 60_000 },
    metadata: { tags: [], category: 'bugfix', difficulty: i % 3 === 0 ? 'hard' : 'easy' },
  };
}

/** An instant attempt with a realistic result (tests, diff, usage), recorded by runAttempt's own record step. */
async function instantAttempt(plan, task, agent, env) {
  const startedAt = new Date();
  const now = startedAt.toISOString();
  const taskNumber = Number(plan.taskId.slice(5));
  const passed = plan.agent === 'agent-a' ? (taskNumber + plan.trial) % 3 !== 0 : (taskNumber + plan.trial) % 2 === 0;
  const group = (ok) => ({ total: 1, passed: ok ? 1 : 0, failing: ok ? [] : [{ id: `t::test_${taskNumber}`, reason: 'failed' }] });
  const result = {
    ...plan,
    schemaVersion: 1,
    verdict: passed ? 'PASS' : 'FAIL',
    cause: passed ? 'passed' : 'tests_failed',
    message: passed ? '' : `fail-to-pass failing: t::test_${taskNumber} (failed)`,
    score: passed ? 100 : 0,
    sandbox: env.sandbox,
    tests: {
      command: 'true',
      exitCode: passed ? 0 : 1,
      timedOut: false,
      durationMs: 5,
      parsed: 20,
      consistent: true,
      failToPass: group(passed),
      passToPass: { total: 19, passed: 19, failing: [] },
      outputTail: 'x'.repeat(2000),
    },
    diff: { files: [{ path: 'src/a.py', kind: 'modified', binary: false, added: 3, deleted: 1 }], filesChanged: 1, added: 3, deleted: 1 },
    checks: [{ id: 'tests', passed, severity: 'error', message: passed ? 'ok' : 'failing', evidence: {} }],
    agentResult: {
      stopReason: 'submitted',
      turns: 5 + (taskNumber % 7),
      toolCalls: 9,
      usage: {
        inputTokens: 20_000 + taskNumber,
        outputTokens: 1500,
        cacheReadTokens: 8000,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        requests: 6,
        costUsd: 0.012,
      },
    },
    timings: { prepareMs: 40, agentMs: 3000, verifyMs: 500, totalMs: 3540 },
    startedAt: now,
    finishedAt: now,
  };
  return record(join(env.runDir, 'attempts', plan.attemptId), result, startedAt, env, { task, agent });
}
