import { gateFutile, gateSequence, type GateTarget } from './gate-sequential.js';
import { pairedComparison, type TaskOutcome } from './paired.js';
import { mulberry32, type Random } from './prng.js';

/** A gate question with a known answer: the baseline's fixed per-task results and the candidate's true pass probabilities. */
export interface GateScenario {
  /** The baseline run's results per task (fixed data). */
  baseline: TaskOutcome[];
  /** The candidate's pass probability per task, in the baseline's task order. */
  candidate: number[];
  /** Drop tolerated, as a fraction. */
  margin: number;
}

export interface GateDesignOutcome {
  runs: number;
  /** Mean attempts a run spent. */
  attempts: number;
  /** Share of runs whose verdict was PASS. */
  pass: number;
  /** Share of runs whose verdict was wrong: PASS when the candidate regressed beyond the margin, FAIL when it did not. */
  error: number;
  /** Adaptive only: shares of runs decided by the anytime test, and wrong among all runs while deciding so. */
  decided?: number;
  decidedError?: number;
  /** Adaptive only: runs stopped by futility. */
  futile?: number;
}

/** True when the candidate regressed beyond the margin: the answer every design is scored against. */
export function gateShouldFail(s: GateScenario): boolean {
  const base = s.baseline.reduce((sum, t) => sum + t.successes / t.n, 0) / s.baseline.length;
  const cand = s.candidate.reduce((sum, p) => sum + p, 0) / s.candidate.length;
  return cand < base - s.margin;
}

/** The ordinary gate's max-drop rule on per-task results: the paired test says worse and the drop exceeds the margin. */
function fixedGateFails(baseline: readonly TaskOutcome[], current: readonly TaskOutcome[], margin: number, seed: number, confidence: number): boolean {
  const c = pairedComparison(baseline, current, { confidence, iterations: 2000, seed });
  return c.verdict === 'A better' && c.diff !== null && c.diff > margin + 1e-9;
}

/** The fixed gate: the candidate tries every task `trials` times, then the ordinary gate decides. */
export function simulateFixedGate(s: GateScenario, trials: number, opts: { runs: number; seed?: number; confidence?: number }): GateDesignOutcome {
  const random = mulberry32(opts.seed ?? 1);
  const truth = gateShouldFail(s);
  let passes = 0;
  let errors = 0;
  for (let run = 0; run < opts.runs; run++) {
    const current = s.candidate.map((p, t) => ({ taskId: (s.baseline[t] as TaskOutcome).taskId, successes: binomial(random, trials, p), n: trials }));
    const fails = fixedGateFails(s.baseline, current, s.margin, run + 1, opts.confidence ?? 0.95);
    if (!fails) passes++;
    if (fails !== truth) errors++;
  }
  return { runs: opts.runs, attempts: trials * s.candidate.length, pass: passes / opts.runs, error: errors / opts.runs };
}

/**
 * The adaptive gate (gateSequence with its allocation, futility and budget) run on simulated
 * trials; when it stops undecided the ordinary gate decides on the trials it ran, as `gate
 * --adaptive` does.
 */
export function simulateAdaptiveGate(
  s: GateScenario,
  budget: number,
  opts: { runs: number; seed?: number; confidence?: number; batch?: number },
): GateDesignOutcome {
  const random = mulberry32(opts.seed ?? 1);
  const truth = gateShouldFail(s);
  const taskIds = s.baseline.map((t) => t.taskId);
  const baseline = Object.fromEntries(s.baseline.map((t) => [t.taskId, t.successes / t.n]));
  const tally = { attempts: 0, passes: 0, errors: 0, decided: 0, decidedErrors: 0, futile: 0 };
  for (let run = 0; run < opts.runs; run++) {
    const target: GateTarget = {
      kind: 'gate',
      confidence: opts.confidence ?? 0.95,
      margin: s.margin,
      agents: [{ agent: 'candidate', baseline }],
      tasks: taskIds,
      batch: opts.batch ?? 8,
      seed: run + 1,
    };
    const records: Array<{ taskId: string; agent: string; trial: number; passed: boolean }> = [];
    let seq = gateSequence(records, target.agents[0] as GateTarget['agents'][number], taskIds, target);
    while (seq.decision === 'open' && records.length < budget && !gateFutile(seq, budget - records.length)) {
      for (const p of seq.pending.slice(0, budget - records.length)) {
        const t = taskIds.indexOf(p.taskId);
        records.push({ taskId: p.taskId, agent: 'candidate', trial: p.trial, passed: random() < (s.candidate[t] as number) });
      }
      seq = gateSequence(records, target.agents[0] as GateTarget['agents'][number], taskIds, target);
    }
    tally.attempts += records.length;
    let fails: boolean;
    if (seq.decision !== 'open') {
      fails = seq.decision === 'fail';
      tally.decided++;
      if (fails !== truth) tally.decidedErrors++;
    } else {
      if (records.length < budget) tally.futile++;
      const current = taskIds.map((taskId) => {
        const mine = records.filter((r) => r.taskId === taskId);
        return { taskId, successes: mine.filter((r) => r.passed).length, n: mine.length };
      });
      fails = fixedGateFails(
        s.baseline,
        current.filter((c) => c.n > 0),
        s.margin,
        run + 1,
        opts.confidence ?? 0.95,
      );
    }
    if (!fails) tally.passes++;
    if (fails !== truth) tally.errors++;
  }
  const n = opts.runs;
  return {
    runs: n,
    attempts: tally.attempts / n,
    pass: tally.passes / n,
    error: tally.errors / n,
    decided: tally.decided / n,
    decidedError: tally.decidedErrors / n,
    futile: tally.futile / n,
  };
}

function binomial(random: Random, n: number, p: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (random() < p) k++;
  return k;
}
