#!/usr/bin/env node
// Adaptive trials against the fixed design, on synthetic agents with known per-task pass
// probabilities: no real attempts, only the statistics and the allocation rule Crucible runs.
// For each scenario: the adaptive design (sequential sign test + allocation, stopped when every pair
// of agents is separated or the budget is spent), then the fixed design (every agent × task × R
// trials, Crucible's paired sign-flip test) for R = 1 … --max-trials; the "fixed design of equal
// power" is the smallest R whose power on every truly different pair is at least the adaptive one's.
// Then the gate scenarios (gate --adaptive): a candidate against a baseline's fixed results, equal,
// slightly worse (within the margin) and clearly worse; the adaptive gate against the fixed gate
// (every task × R trials, the ordinary max-drop rule) for R = 1 … --max-trials.
// Usage: npx tsc -p tsconfig.build.json && node bench/adaptive.mjs [--runs 2000] [--gate-runs 400] [--seed 1] [--scenario mixed|gate]
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { answerHelp } from './lib/measure.mjs';

answerHelp(import.meta.url);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { simulateAdaptive, simulateFixed, simulateAdaptiveGate, simulateFixedGate, gateShouldFail } = await import(
  pathToFileURL(resolve(root, 'dist/domain/stats/index.js')).href
);

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(option('runs', '2000'));
const SEED = Number(option('seed', '1'));
const MAX_TRIALS = Number(option('max-trials', '10'));
const BATCH = Number(option('batch', '8'));
const CONFIDENCE = 0.95;

/** Task kinds × counts → per-agent probability rows. */
function scenario(agents, kinds) {
  const rows = agents.map(() => []);
  for (const { count, p } of kinds) for (let k = 0; k < count; k++) p.forEach((q, a) => rows[a].push(q));
  return { agents, passProbability: rows };
}

// Real task sets: many tasks every agent solves or none does, a contested middle where they differ.
const SCENARIOS = {
  mixed: scenario(
    ['strong', 'medium', 'weak'],
    [
      { count: 16, p: [0.95, 0.95, 0.95] },
      { count: 12, p: [0.03, 0.03, 0.03] },
      { count: 12, p: [0.9, 0.5, 0.1] },
    ],
  ),
  close: scenario(
    ['a', 'b'],
    [
      { count: 10, p: [0.95, 0.95] },
      { count: 10, p: [0.05, 0.05] },
      { count: 20, p: [0.6, 0.4] },
    ],
  ),
  identical: scenario(
    ['a', 'b'],
    [
      { count: 15, p: [0.95, 0.95] },
      { count: 15, p: [0.05, 0.05] },
      { count: 10, p: [0.5, 0.5] },
    ],
  ),
};

const only = option('scenario', undefined);
const names = only ? (only === 'gate' ? [] : [only]) : Object.keys(SCENARIOS);
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const lines = [];
for (const name of names) {
  const sc = SCENARIOS[name];
  const tasks = sc.passProbability[0].length;
  const budget = tasks * sc.agents.length * MAX_TRIALS;
  const t0 = Date.now();
  const adaptive = simulateAdaptive(sc, budget, { runs: RUNS, seed: SEED, confidence: CONFIDENCE, batch: BATCH });
  const fixed = [];
  for (let r = 1; r <= MAX_TRIALS; r++) fixed.push({ r, ...simulateFixed(sc, r, { runs: RUNS, seed: SEED + r, confidence: CONFIDENCE }) });
  const differing = adaptive.comparisons.map((c, k) => ({ c, k })).filter(({ c }) => c.trueDiff !== 0);
  const equal = differing.length === 0 ? undefined : fixed.find((f) => differing.every(({ c, k }) => f.comparisons[k].power >= c.power));
  lines.push(`\n## ${name}: ${sc.agents.length} agents, ${tasks} tasks, ${RUNS} runs, budget ${budget} attempts, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const header = ['design', 'attempts', ...adaptive.comparisons.map((c) => `${c.a}−${c.b} (Δ ${(c.trueDiff * 100).toFixed(1)}pp) power / error`)];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`);
  const row = (label, d) => `| ${label} | ${d.attempts.toFixed(0)} | ${d.comparisons.map((c) => `${pct(c.power)} / ${pct(c.error)}`).join(' | ')} |`;
  lines.push(row(`adaptive (met ${pct(adaptive.met)})`, adaptive));
  for (const f of fixed) lines.push(row(`fixed ×${f.r}${f === equal ? ' ← equal power' : ''}`, f));
  if (equal)
    lines.push(
      `\nadaptive spends ${pct(1 - adaptive.attempts / equal.attempts)} fewer attempts than the fixed design of equal power (×${equal.r}, ${equal.attempts}).`,
    );
  else if (differing.length > 0) {
    // Power only grows with R, so the fixed design of equal power spends more than the largest one tried.
    const largest = fixed[fixed.length - 1];
    lines.push(
      `\nno fixed design up to ×${MAX_TRIALS} reaches the adaptive design's power; the one that does spends more than ${largest.attempts}, so adaptive spends over ${pct(1 - adaptive.attempts / largest.attempts)} fewer.`,
    );
  }
  const worst = Math.max(...adaptive.comparisons.map((c) => c.error));
  lines.push(`adaptive error rate (worst comparison): ${pct(worst)} (nominal ${pct(1 - CONFIDENCE)}).`);
}
// Gate: a baseline saved from 3 trials per task (fixed data), 40 tasks like the mixed scenario's,
// margin 5 pts; the candidate's drop is all on the 12 contested tasks.
const GATE_RUNS = Number(option('gate-runs', '400'));
const GATE_BUDGET = Number(option('gate-budget', '400'));
const MARGIN = 0.05;
if (!only || only === 'gate') {
  const kinds = [
    { count: 16, successes: 3 },
    { count: 12, successes: 0 },
    { count: 6, successes: 2 },
    { count: 6, successes: 1 },
  ];
  const baseline = [];
  for (const { count, successes } of kinds) for (let k = 0; k < count; k++) baseline.push({ taskId: `t${baseline.length}`, successes, n: 3 });
  const equal = baseline.map((t) => t.successes / t.n);
  const worse = (drop) => equal.map((p, t) => (t >= 28 ? Math.max(0, p - (drop * baseline.length) / 12) : p));
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  // Named by the true drop of the task-weighted rate (a rate cannot go below 0, so −15 pts asked is less on these tasks).
  const named = (label, c) => [`${label} (${((mean(c) - mean(equal)) * 100).toFixed(1)} pts)`, c];
  const gates = Object.fromEntries([named('equal', equal), named('slightly worse', worse(0.03)), named('clearly worse', worse(0.15))]);
  lines.push(
    `\n## gate: 40 tasks, baseline 3 trials each (fixed), margin ${MARGIN * 100} pts, ${GATE_RUNS} runs, adaptive budget ${GATE_BUDGET} attempts`,
    '| candidate | answer | design | attempts | verdict PASS | error | decided by the anytime test (wrong) | futile |',
    '|---|---|---|---:|---:|---:|---:|---:|',
  );
  for (const [name, candidate] of Object.entries(gates)) {
    const sc = { baseline, candidate, margin: MARGIN };
    const answer = gateShouldFail(sc) ? 'FAIL' : 'PASS';
    const a = simulateAdaptiveGate(sc, GATE_BUDGET, { runs: GATE_RUNS, seed: SEED, confidence: CONFIDENCE, batch: BATCH });
    lines.push(
      `| ${name} | ${answer} | adaptive | ${a.attempts.toFixed(0)} | ${pct(a.pass)} | ${pct(a.error)} | ${pct(a.decided)} (${pct(a.decidedError)}) | ${pct(a.futile)} |`,
    );
    const fixed = [];
    for (let r = 1; r <= MAX_TRIALS; r++) fixed.push({ r, ...simulateFixedGate(sc, r, { runs: GATE_RUNS, seed: SEED + r, confidence: CONFIDENCE }) });
    for (const f of fixed) lines.push(`| | | fixed ×${f.r} | ${f.attempts} | ${pct(f.pass)} | ${pct(f.error)} | | |`);
    if (answer === 'FAIL') {
      const power = 1 - a.error;
      const equalPower = fixed.find((f) => 1 - f.error >= power);
      lines.push(
        equalPower
          ? `| | | adaptive spends ${pct(1 - a.attempts / equalPower.attempts)} fewer attempts than the fixed gate of equal power (×${equalPower.r}) | | | | | |`
          : `| | | no fixed gate up to ×${MAX_TRIALS} reaches the adaptive gate's power (${pct(power)}) | | | | | |`,
      );
    }
  }
}
console.log(`# bench/adaptive.mjs --runs ${RUNS} --gate-runs ${GATE_RUNS} --seed ${SEED} --max-trials ${MAX_TRIALS} --batch ${BATCH}${lines.join('\n')}`);
