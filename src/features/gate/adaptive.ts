import type { AdaptiveGateSummary, AdaptiveStop } from '../../engine/index.js';
import { describeGateDecision } from '../../engine/index.js';
import { gateSequence, type GateTarget } from '../../domain/stats/index.js';
import { UNSCORED_CAUSES, type Cause, type Verdict } from '../../core/types/index.js';
import type { BaselineFile } from '../baseline/index.js';
import type { GateEvaluation } from './evaluate.js';

/** How an adaptive gate ended, per agent and overall, in gate.json as `adaptive`. */
export interface GateAdaptiveReport {
  /** Why the run stopped (summary.json's `adaptive.stopped`); absent when the run's summary was not read. */
  stopped?: AdaptiveStop;
  /** The error rate of the anytime test. */
  alpha: number;
  /** The drop tolerated, in points. */
  maxDrop: number;
  agents: Array<AdaptiveGateSummary & { agent: string; decidedBy: 'anytime test' | 'fixed gate' }>;
}

/**
 * The anytime gate's target: per agent, its baseline agent's pass rate on each gated task (over the
 * baseline's scored attempts). Tasks some agent's baseline never scored cannot be gated and are left out.
 */
export function gateTarget(
  baseline: BaselineFile,
  pairs: ReadonlyArray<[agent: string, baselineAgent: string]>,
  taskIds: readonly string[],
  opts: { maxDrop: number; confidence: number; batch: number; seed: number },
): GateTarget {
  const rates = pairs.map(([agent, baselineAgent]) => {
    const rate: Record<string, number> = {};
    for (const e of baseline.entries) {
      if (e.agent.spec !== baselineAgent) continue;
      const scored = e.attempts.filter((a) => !UNSCORED_CAUSES.has(a.cause));
      if (scored.length > 0) rate[e.taskId] = scored.filter((a) => a.verdict === 'PASS').length / scored.length;
    }
    return { agent, baseline: rate };
  });
  const tasks = taskIds.filter((id) => rates.every((r) => r.baseline[id] !== undefined));
  const keep = new Set(tasks);
  return {
    kind: 'gate',
    confidence: opts.confidence,
    margin: opts.maxDrop / 100,
    agents: rates.map((r) => ({ agent: r.agent, baseline: Object.fromEntries(Object.entries(r.baseline).filter(([id]) => keep.has(id))) })),
    tasks,
    batch: opts.batch,
    seed: opts.seed,
  };
}

/**
 * Applies the anytime test to a gate's evaluation. Per agent: a decided test is the agent's verdict
 * (its fixed rules stay in the report, for information); an undecided one leaves the ordinary
 * fixed-sample rules to decide, on the attempts that ran, and the report says so. The test is
 * replayed from the run's attempts (gateSequence is pure), so `gate --run` of a resumed run gives
 * what the run itself decided.
 */
export function applyAdaptiveGate(
  evaluation: GateEvaluation,
  target: GateTarget,
  attempts: ReadonlyArray<{ taskId: string; agent: string; trial: number; verdict: Verdict; cause: Cause }>,
  stopped: AdaptiveStop | undefined,
): GateEvaluation & { adaptive: GateAdaptiveReport } {
  const records = attempts.map((a) => ({
    taskId: a.taskId,
    agent: a.agent,
    trial: a.trial,
    passed: UNSCORED_CAUSES.has(a.cause) ? null : a.verdict === 'PASS',
  }));
  const notes = [...evaluation.notes];
  const gatedHere = (f: string): boolean => target.agents.some((g) => f.startsWith(`${g.agent}: `));
  const failures = evaluation.failures.filter((f) => !gatedHere(f));
  const agents = target.agents.map((gated) => {
    const seq = gateSequence(records, gated, target.tasks, target);
    const summary: AdaptiveGateSummary = {
      decision: seq.decision,
      baselineRate: seq.baselineRate,
      reference: seq.reference,
      eForPass: seq.eForPass,
      eForFail: seq.eForFail,
      threshold: seq.threshold,
      steps: seq.steps,
      estimate: seq.estimate,
    };
    const fixed = evaluation.failures.filter((f) => f.startsWith(`${gated.agent}: `));
    if (seq.decision === 'fail') failures.push(`${gated.agent}: adaptive: ${describeGateDecision(summary)}`);
    if (seq.decision === 'open') {
      failures.push(...fixed);
      notes.push(
        `${gated.agent}: the anytime test did not decide (${describeGateDecision(summary)}); the ordinary fixed-sample gate decided, on the attempts that ran`,
      );
    } else if (fixed.length > 0 || seq.decision === 'pass')
      notes.push(`${gated.agent}: decided by the anytime test; the fixed rules below are shown for information and do not decide`);
    return { agent: gated.agent, decidedBy: seq.decision === 'open' ? ('fixed gate' as const) : ('anytime test' as const), ...summary };
  });
  return {
    ...evaluation,
    verdict: failures.length > 0 ? 'FAIL' : 'PASS',
    failures,
    notes,
    adaptive: { ...(stopped ? { stopped } : {}), alpha: Number((1 - target.confidence).toPrecision(6)), maxDrop: target.margin * 100, agents },
  };
}
