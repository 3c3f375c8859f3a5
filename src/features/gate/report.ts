import type { GateAdaptiveReport } from './adaptive.js';
import type { GateEvaluation, GateThresholds } from './evaluate.js';
import { points } from './evaluate.js';

/** gate.json: the evaluation plus what was gated, where, and with which thresholds. */
export interface GateReport extends GateEvaluation {
  id: string;
  createdAt: string;
  reportDir: string;
  runId: string;
  taskSet: string;
  baseline: { file: string; sourceRun: string; createdAt: string };
  thresholds: GateThresholds;
  /** `gate --adaptive`: how the run stopped and which test decided each agent. */
  adaptive?: GateAdaptiveReport;
}

const STOPS: Record<string, string> = {
  'target met': 'every agent decided by the anytime test',
  futile: 'futile (what was left of the budget could not decide the open test)',
  'budget spent': 'budget spent before the anytime test decided',
  'trials exhausted': 'an open task reached its --runs trials before the anytime test decided',
};

/** How an adaptive gate stopped and, per agent, which test decided it. */
function adaptiveLines(a: GateAdaptiveReport): string[] {
  const how = a.stopped === undefined ? '' : `stopped: ${STOPS[a.stopped] ?? a.stopped}; `;
  return [
    `adaptive gate (anytime test at alpha ${a.alpha}, margin ${a.maxDrop} pts): ${how}${a.agents
      .map((g) =>
        g.decision === 'open'
          ? `${g.agent} not decided, so the ordinary fixed-sample gate decides`
          : `${g.agent} decided ${g.decision} by the anytime test (e-value ${(g.decision === 'pass' ? g.eForPass : g.eForFail).toPrecision(3)} ≥ ${g.threshold}, ${g.steps} draws)`,
      )
      .join('; ')}`,
  ];
}

const pct = (r: number | null): string => (r === null ? 'n/a' : `${(r * 100).toFixed(1)}%`);

function interval(a: GateReport['agents'][number]): string {
  const c = a.comparison;
  if (c.low === null || c.high === null || c.diff === null) return 'no shared scored task';
  return `${points(c.diff)}, ${Math.round(c.confidence * 100)}% interval [${points(c.low)}, ${points(c.high)}], p ${c.pValue?.toFixed(3) ?? 'n/a'} (${c.method}, ${a.tasks} tasks)`;
}

/** The one-screen verdict: what failed and why, with numbers; then per agent its comparison and flips. */
export function formatGate(g: GateReport): string {
  const out: string[] = [`gate ${g.verdict} — run ${g.runId} vs baseline ${g.baseline.file} (run ${g.baseline.sourceRun})`];
  for (const f of g.failures) out.push(`  FAILED ${f}`);
  if (g.adaptive) out.push(...adaptiveLines(g.adaptive));
  for (const a of g.agents) {
    out.push(
      '',
      `${a.agent}${a.agent === a.baselineAgent ? '' : ` vs baseline ${a.baselineAgent}`}: pass rate ${pct(a.passRate)} (baseline ${pct(a.baselinePassRate)})`,
    );
    out.push(`  paired change (new − baseline): ${interval(a)} → ${a.comparison.verdict}`);
    if (a.comparison.note) out.push(`  ${a.comparison.note}`);
    if (a.regressedTasks.length > 0)
      out.push(
        `  regressed (PASS→FAIL): ${a.regressedTasks.map((t) => `${t.taskId} ${t.baseline.passes}/${t.baseline.n}→${t.current.passes}/${t.current.n}`).join(', ')}`,
      );
    if (a.worseTasks.length > 0)
      out.push(`  worse: ${a.worseTasks.map((t) => `${t.taskId} ${t.baseline.passes}/${t.baseline.n}→${t.current.passes}/${t.current.n}`).join(', ')}`);
    if (a.newlyFailedChecks.length > 0)
      out.push(`  newly failed checks: ${a.newlyFailedChecks.map((t) => `${t.taskId} [${t.newlyFailedChecks.join(', ')}]`).join(', ')}`);
    for (const r of a.rules) out.push(`  ${r.passed ? 'ok  ' : 'FAIL'} ${r.rule}: ${r.message}`);
  }
  if (g.strength) out.push('', `${g.strength.passed ? 'ok  ' : 'FAIL'} min-strength: ${g.strength.message}`);
  for (const n of g.notes) out.push(`note ${n}`);
  out.push('', `report: ${g.reportDir}`);
  return out.join('\n');
}

/** gate.md and the GitHub step summary. */
export function gateMarkdown(g: GateReport): string {
  const out: string[] = [
    `## Crucible gate: ${g.verdict === 'PASS' ? '✅ PASS' : '❌ FAIL'}`,
    '',
    `Run \`${g.runId}\` of \`${g.taskSet}\` against baseline \`${g.baseline.file}\` (run \`${g.baseline.sourceRun}\`).`,
    '',
  ];
  if (g.failures.length > 0) out.push('**Failed rules**', '', ...g.failures.map((f) => `- ${f}`), '');
  if (g.adaptive) out.push(...adaptiveLines(g.adaptive).map((l) => `**${l.replace(/^adaptive gate/, 'Adaptive gate')}**`), '');
  out.push('| agent | baseline | pass rate | baseline rate | change (new − baseline) | interval | p | regressed tasks |', '|---|---|---|---|---|---|---|---|');
  for (const a of g.agents) {
    const c = a.comparison;
    out.push(
      `| ${a.agent} | ${a.baselineAgent} | ${pct(a.passRate)} | ${pct(a.baselinePassRate)} | ${c.diff === null ? '-' : points(c.diff)} | ${
        c.low === null || c.high === null ? '-' : `[${points(c.low)}, ${points(c.high)}]`
      } | ${c.pValue === null ? '-' : c.pValue.toFixed(3)} | ${a.regressedTasks.map((t) => t.taskId).join(', ') || '-'} |`,
    );
  }
  const checks = g.agents.flatMap((a) => a.newlyFailedChecks.map((t) => `- ${a.agent} ${t.taskId}: ${t.newlyFailedChecks.join(', ')}`));
  if (checks.length > 0) out.push('', '**Newly failed checks**', '', ...checks);
  if (g.strength) out.push('', `**Task strength** (at least ${g.strength.minStrength} required): ${g.strength.passed ? 'ok' : 'FAIL'}, ${g.strength.message}`);
  if (g.notes.length > 0) out.push('', ...g.notes.map((n) => `> ${n}`));
  return `${out.join('\n')}\n`;
}
