#!/usr/bin/env node
// The dashboard API at scale: builds a history of 100 runs × 1 000 attempts (100 000 attempts,
// 5 agents × 50 tasks × 4 trials per run, one run a day) through the store API the engine uses,
// with stats stored per run as the engine stores them, then serves it with `crucible view` in a
// process of its own (the load generator's event loop and CPU time are not the server's) and
// times the API calls behind each page over loopback HTTP.
// Each run ends as the engine ends one: stats in the history and summary.json with the failure
// patterns of every failed attempt. Prints the server's start-up (spawn to listening) and
// p50 / p95 / max per view; the goal is p95 < 100 ms.
// Usage: npm run bench:dashboard   (or: npm run build && node bench/dashboard.mjs [--runs 100] [--per-run 1000] [--agents 5]
//        [--requests 200] [--keep <dir>]: build the history into <dir> once and reuse it on later runs)
// One large run, as issue 38 measures it: node bench/dashboard.mjs --large
//   (= --runs 1 --per-run 100000 --agents 20 --requests 40, the history built once and kept in
//   <tmp>/crucible-bench-dashboard-large-v<schema>; goal: start < 2 s, every route p95 < 200 ms)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { answerHelp } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const LARGE = args.includes('--large');
const RUNS = option('runs', LARGE ? 1 : 100);
const PER_RUN = option('per-run', LARGE ? 100_000 : 1000);
const REQUESTS = option('requests', LARGE ? 40 : 200);
const AGENTS = Array.from({ length: option('agents', LARGE ? 20 : 5) }, (_, i) => `agent-${String.fromCharCode(97 + (i % 26))}${i >= 26 ? i : ''}`);
const TRIALS = 4;
const TASKS = Math.max(1, Math.round(PER_RUN / (AGENTS.length * TRIALS)));
const WITH_FILES = 200;

const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { openHistory, SCHEMA_VERSION } = await load('infra/store/index.js');
const GOAL_MS = LARGE ? 200 : 100;
// The large case's history takes minutes to build: it is kept between runs of the bench, named by
// the history schema it was built with (an older one is upgraded by the writer open below).
const keepAt = args.includes('--keep')
  ? resolve(args[args.indexOf('--keep') + 1])
  : LARGE
    ? join(tmpdir(), `crucible-bench-dashboard-large-v${SCHEMA_VERSION}`)
    : null;
const { aggregateRun, wilson } = await load('domain/stats/index.js');
const { FAILURE_PATTERNS } = await load('domain/failures/failure-patterns.js');

/** `crucible view` on the history, as a user starts it; resolves with its URL and a stop function. */
function startView(stateDir) {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin', 'crucible.js'), 'view', '--out', stateDir, '--port', '0'], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  return new Promise((resolveView, reject) => {
    const onData = (chunk) => {
      text += chunk.toString('utf8');
      const m = text.match(/dashboard on (http:\/\/\S+)/);
      if (m) {
        child.stdout.off('data', onData);
        resolveView({
          url: m[1],
          pid: child.pid,
          startMs: performance.now() - started,
          close: () =>
            new Promise((done) => {
              child.once('close', (code, signal) => done({ code, signal }));
              child.kill('SIGINT');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (text += chunk.toString('utf8')));
    child.once('close', (code) => reject(new Error(`crucible view exited (${code}) before serving:\n${text}`)));
  });
}

/** Deterministic pseudo-random numbers, so every run of the bench builds the same history. */
let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (list) => list[Math.floor(random() * list.length)];
const CAUSES = ['tests_failed', 'tests_failed', 'regression', 'no_changes', 'agent_timeout', 'policy_violation', 'max_turns'];

function makeAttempt(runId, day, agentIndex, task, trial, index) {
  const agent = AGENTS[agentIndex];
  const skill = 0.35 + (agentIndex % 6) * 0.1;
  const error = random() < 0.02;
  const pass = !error && random() < skill;
  const cause = error ? 'harness_error' : pass ? 'passed' : pick(CAUSES);
  const start = new Date(Date.UTC(2026, 0, 1) + day * 86_400_000 + index * 1000);
  const totalMs = Math.round(20_000 + random() * 200_000);
  const input = Math.round(5_000 + random() * 60_000);
  const output = Math.round(500 + random() * 6_000);
  return {
    attemptId: `task-${task}.${agent}.${trial}.${runId.slice(-4)}${String(index).padStart(6, '0')}`,
    runId,
    taskId: `task-${String(task).padStart(3, '0')}`,
    taskVersion: '1',
    agent,
    trial,
    index,
    schemaVersion: 1,
    verdict: error ? 'ERROR' : pass ? 'PASS' : 'FAIL',
    cause,
    message: pass ? 'F2P 2/2, P2P 14/14' : `${cause}: fail-to-pass failing: tests.test_mod::test_case_${task} (failed)`,
    score: error ? undefined : pass ? 100 : 40,
    sandbox: 'bwrap',
    checks: ['tests', 'regression', 'held_out', 'no_changes', 'test_tampering', 'secrets'].map((id) => ({
      id,
      passed: pass || id !== 'tests',
      severity: id === 'secrets' || id === 'test_tampering' ? 'critical' : 'error',
      message: `${id} checked`,
      evidence: {},
    })),
    timings: { prepareMs: 800, agentMs: totalMs - 3000, verifyMs: 2200, totalMs },
    startedAt: start.toISOString(),
    finishedAt: new Date(start.getTime() + totalMs).toISOString(),
    tests: error
      ? undefined
      : {
          command: 'python3 -m pytest -q',
          exitCode: pass ? 0 : 1,
          timedOut: false,
          durationMs: 2000,
          parsed: 16,
          consistent: true,
          failToPass: { total: 2, passed: pass ? 2 : 0, failing: pass ? [] : [{ id: `tests.test_mod::test_case_${task}`, reason: 'failed' }] },
          passToPass: { total: 14, passed: 14, failing: [] },
          outputTail: '',
        },
    heldOut:
      task % 5 === 0 && !error
        ? {
            command: 'python3 -m pytest -q tests_held_out',
            exitCode: 0,
            timedOut: false,
            durationMs: 900,
            parsed: 4,
            consistent: true,
            failToPass: { total: 0, passed: 0, failing: [] },
            passToPass: { total: 4, passed: pass && random() < 0.8 ? 4 : 3, failing: [] },
            outputTail: '',
          }
        : undefined,
    diff: { files: [], filesChanged: 1 + Math.floor(random() * 4), added: Math.floor(random() * 80), deleted: Math.floor(random() * 30) },
    agentResult: error
      ? undefined
      : {
          stopReason: 'submitted',
          usage: {
            inputTokens: input,
            outputTokens: output,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 0,
            requests: 12,
            costUsd: (input * 0.4 + output * 1.6) / 1e6,
          },
          turns: 12,
          toolCalls: 20,
        },
  };
}

function writeArtifacts(stateDir, a) {
  const dir = join(stateDir, 'runs', a.runId, 'attempts', a.attemptId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'attempt.json'), JSON.stringify(a));
  const lines = [];
  for (let i = 0; i < 40; i++) lines.push(`-    old line ${i}`, `+    new line ${i} with a change`, `     context ${i}`);
  writeFileSync(join(dir, 'diff.patch'), `diff --git a/src/mod.py b/src/mod.py\n--- a/src/mod.py\n+++ b/src/mod.py\n@@ -1,80 +1,80 @@\n${lines.join('\n')}\n`);
  const events = [];
  for (let i = 0; i < 200; i++) {
    events.push(
      JSON.stringify(
        i % 2 ? { type: 'tool_result', tool: 'read_file', output: 'x'.repeat(400) } : { type: 'tool_call', tool: 'read_file', input: { path: `src/f${i}.py` } },
      ),
    );
  }
  writeFileSync(join(dir, 'trajectory.jsonl'), `${events.join('\n')}\n`);
  const cases = Array.from({ length: 16 }, (_, i) => `<testcase classname="tests.test_mod" name="test_case_${i}" time="0.01"/>`).join('');
  writeFileSync(join(dir, 'tests.junit.xml'), `<testsuites><testsuite name="pytest">${cases}</testsuite></testsuites>`);
}

/**
 * summary.json as a finished run writes it: the failure-pattern table of its failed attempts (each
 * failed attempt shows a pseudo-random set of patterns; every pattern lists its attempts' ids).
 */
function writeSummary(stateDir, runId, attempts) {
  const dir = join(stateDir, 'runs', runId);
  mkdirSync(dir, { recursive: true });
  const failurePatterns = [];
  for (const agent of AGENTS) {
    const failed = attempts.filter((a) => a.agent === agent && a.verdict === 'FAIL');
    if (failed.length === 0) continue;
    const patterns = FAILURE_PATTERNS.flatMap((p) => {
      const ids = failed.filter(() => random() < 0.3).map((a) => a.attemptId);
      const share = wilson(ids.length, failed.length);
      return ids.length > 0 && share ? [{ id: p.id, label: p.label, count: ids.length, share, attemptIds: ids }] : [];
    }).sort((a, b) => b.count - a.count);
    failurePatterns.push({ agent, failed: failed.length, patterns });
  }
  writeFileSync(join(dir, 'summary.json'), JSON.stringify({ runId, failurePatterns }));
}

function build(stateDir) {
  const history = openHistory(join(stateDir, 'history.db'));
  const sampled = [];
  const runIds = [];
  for (let r = 0; r < RUNS; r++) {
    const day = new Date(Date.UTC(2026, 0, 1) + r * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
    const runId = `${day}-120000-${r.toString(16).padStart(4, '0')}`;
    runIds.push(runId);
    const attempts = [];
    for (let t = 0; t < TASKS; t++) {
      for (let g = 0; g < AGENTS.length; g++) for (let k = 0; k < TRIALS; k++) attempts.push(makeAttempt(runId, r, g, t, k, attempts.length));
    }
    const createdAt = attempts[0].startedAt;
    history.recordRun({ runId, taskSet: 'bench/tasks.yaml', createdAt, planned: attempts.length, agents: AGENTS });
    history.recordAttempts(
      runId,
      attempts.map((attempt) => ({ attempt, extra: { repoKey: `repo-${attempt.taskId.slice(-1)}` } })),
    );
    const stats = aggregateRun(attempts, { ks: [1, TRIALS] });
    const counts = { PASS: 0, FAIL: 0, ERROR: 0 };
    for (const a of attempts) counts[a.verdict] += 1;
    writeSummary(stateDir, runId, attempts);
    history.finishRun(runId, { finishedAt: attempts[attempts.length - 1].finishedAt, executed: attempts.length, stoppedEarly: false, counts, stats });
    // Evidence files for a sample of attempts, read by the attempt page.
    for (let i = 0; i < WITH_FILES / RUNS && i < attempts.length; i++) {
      const a = attempts[Math.floor(random() * attempts.length)];
      writeArtifacts(stateDir, a);
      sampled.push(a.attemptId);
    }
    if ((r + 1) % 10 === 0) process.stderr.write(`  recorded ${(r + 1) * attempts.length} attempts\n`);
  }
  history.close();
  return { runIds, sampled };
}

/** The server's resident and peak memory in KiB, from /proc (Linux). */
function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? NaN);
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

async function time(base, name, pathOf) {
  const agent = { keepalive: true };
  for (let i = 0; i < 10; i++) await (await fetch(`${base}${pathOf(i)}`, agent)).arrayBuffer();
  const ms = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${pathOf(i + 10)}`, agent);
    const body = await res.arrayBuffer();
    ms.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${name}: ${pathOf(i)} answered ${res.status}: ${Buffer.from(body).toString()}`);
    bytes += body.byteLength;
  }
  ms.sort((a, b) => a - b);
  return { name, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), max: ms[ms.length - 1], kb: bytes / REQUESTS / 1024 };
}

const scratch = keepAt ?? mkdtempSync(join(tmpdir(), 'crucible-bench-dashboard-'));
const ids = join(scratch, 'bench-ids.json');
try {
  let built;
  if (keepAt && existsSync(ids)) {
    built = JSON.parse(readFileSync(ids, 'utf8'));
    process.stderr.write(`reusing the history in ${scratch}\n`);
  } else {
    const t0 = performance.now();
    mkdirSync(scratch, { recursive: true });
    process.stderr.write(`building a history of ${RUNS} runs × ${TASKS * AGENTS.length * TRIALS} attempts in ${scratch}\n`);
    built = build(scratch);
    writeFileSync(ids, JSON.stringify(built));
    process.stderr.write(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  const { runIds, sampled } = built;
  // As the engine's next run would: a writer open brings an older history to the current schema
  // (tallying it once), so the dashboard reads what a current history holds.
  const upgradeStart = performance.now();
  openHistory(join(scratch, 'history.db')).close();
  process.stderr.write(`history opened for writing in ${(performance.now() - upgradeStart).toFixed(0)} ms\n`);
  const server = await startView(scratch);
  process.stderr.write(`crucible view listening after ${server.startMs.toFixed(0)} ms\n`);
  const base = server.url.replace(/\/$/, '');
  const page2 = (await (await fetch(`${base}/api/runs?limit=50`)).json()).nextCursor;
  const runAt = (i) => runIds[(i * 37) % runIds.length];
  let deepCursor = null;
  for (let p = 0, cursor = null; p < 10; p++) {
    const page = await (await fetch(`${base}/api/runs/${runIds[0]}/attempts?limit=50${cursor ? `&cursor=${cursor}` : ''}`)).json();
    cursor = page.nextCursor;
    deepCursor = cursor;
    if (!cursor) break;
  }
  const cellCursor = (await (await fetch(`${base}/api/runs/${runIds[0]}/cells?limit=50`)).json()).nextCursor;
  const views = [
    ['runs list, first page', () => '/api/runs?limit=50'],
    ...(page2 ? [['runs list, second page (cursor)', () => `/api/runs?limit=50&cursor=${page2}`]] : []),
    ['index page (HTML)', () => '/'],
    ['runs list, filtered by agent', () => '/api/runs?limit=50&agent=agent-c'],
    ['run page (stats, held-out; uncached)', (i) => `/api/runs/${runAt(i)}`],
    ['run attempts, first page', (i) => `/api/runs/${runAt(i)}/attempts?limit=50`],
    ...(deepCursor ? [['run attempts, page 11 (cursor)', () => `/api/runs/${runIds[0]}/attempts?limit=50&cursor=${deepCursor}`]] : []),
    ['run attempts, verdict + agent filter', (i) => `/api/runs/${runAt(i)}/attempts?limit=50&verdict=FAIL&agent=agent-b`],
    ['run heatmap, first 50 tasks', (i) => `/api/runs/${runAt(i)}/cells?limit=50`],
    ...(cellCursor ? [['run heatmap, next 50 tasks (cursor)', () => `/api/runs/${runIds[0]}/cells?limit=50&cursor=${cellCursor}`]] : []),
    ['attempt page (record + diff, tests, trajectory)', (i) => `/api/attempts/${sampled[i % sampled.length]}`],
    ['compare two runs (first time)', (i) => `/api/compare?a=${runAt(i)}&b=${runAt(i + 1)}`],
    ['compare two runs (again: cached)', () => `/api/compare?a=${runIds[0]}&b=${runIds[1 % runIds.length]}`],
    ['trends, 30 days', () => '/api/trends?bucket=day&limit=30'],
    ['trends, 30 runs, per task, one agent', () => '/api/trends?bucket=run&limit=30&perTask=1&agent=agent-a'],
    ['trends, 90 days, one task', () => '/api/trends?bucket=day&limit=90&taskId=task-007'],
  ];
  const rows = [];
  const rss = [memoryOf(server.pid)];
  for (const [name, pathOf] of views) {
    rows.push(await time(base, name, pathOf));
    rss.push(memoryOf(server.pid));
  }
  const stopped = await server.close();
  // The server must have served to the end, and stopped on Ctrl-C as a user's does.
  if (stopped.code !== 0 && stopped.code !== 130 && stopped.signal !== 'SIGINT') throw new Error(`crucible view ended with ${stopped.code ?? stopped.signal}`);
  const pad = (s, n) => String(s).padEnd(n);
  console.log(
    `\n${runIds.length * TASKS * AGENTS.length * TRIALS} attempts in ${runIds.length} runs; ${REQUESTS} requests per view over loopback HTTP, sequential, to \`crucible view\` in its own process; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  console.log(`start-up (spawn to listening): ${server.startMs.toFixed(0)} ms; goal < 2000 ms: ${server.startMs < 2000 ? 'met' : 'NOT met'}`);
  const mb = (kb) => (kb / 1024).toFixed(0);
  console.log(
    `server memory (RSS): ${mb(rss[0].rss)} MB after start, ${mb(rss[rss.length - 1].rss)} MB after every view; peak ${mb(rss[rss.length - 1].hwm)} MB\n`,
  );
  console.log(`| view | p50 ms | p95 ms | max ms | response KiB |`);
  console.log(`|---|---:|---:|---:|---:|`);
  for (const r of rows) console.log(`| ${pad(r.name, 46)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} | ${r.kb.toFixed(1)} |`);
  const worst = rows.reduce((a, b) => (b.p95 > a.p95 ? b : a));
  console.log(`\nworst p95: ${worst.p95.toFixed(1)} ms (${worst.name}); goal < ${GOAL_MS} ms: ${worst.p95 < GOAL_MS ? 'met' : 'NOT met'}`);
} finally {
  if (!keepAt) rmSync(scratch, { recursive: true, force: true });
}
