/**
 * Matrix stress: a large synthetic plan through the real engine (executeRun: plan, scheduler,
 * attempt.json + checkpoint per attempt, SQLite history, statistics, summary.json), once to the
 * end and once with fail-fast, then checks the bookkeeping from the files the run left: planned =
 * submitted + skipped, executed = checkpoint rows = history rows, no identity twice, plan order
 * in the summary whatever order attempts finished in, aggregates equal to the arithmetic, and a
 * fail-fast stop that recorded everything it started. Reports throughput and peak memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeRun, type RunOutcome } from '../../engine/index.js';
import { readCheckpoint, readPlanFile } from '../../domain/run-dir/index.js';
import { openHistory } from '../../infra/store/index.js';
import {
  expectedPass,
  STRESS_AGENTS,
  STRESS_TRIALS,
  stressAgent,
  stressRunner,
  stressTasks,
  type RunnerLog,
  type StressFault,
} from './matrix-stress-runner.js';

export interface MatrixStressOptions {
  /** Attempts wanted; the plan is whole tasks of 2 agents × 5 trials, so it is rounded up to a multiple of 10. */
  attempts: number;
  concurrency: number;
  /** Also run the plan with fail-fast and check its accounting; default true. */
  failFast?: boolean;
  /** Test hook: break an invariant on purpose (see StressFault). */
  fault?: StressFault;
}

export interface StressCheck {
  run: 'full' | 'fail-fast';
  id: string;
  passed: boolean;
  detail: string;
}

export interface StressRunFigures {
  run: 'full' | 'fail-fast';
  runId: string;
  ended: string;
  planned: number;
  submitted: number;
  skipped: number;
  executed: number;
  checkpointRows: number;
  historyRows: number;
  seconds: number;
  attemptsPerSecond: number;
  /** Attempts that finished out of plan order (the summary must still be in plan order). */
  finishedOutOfOrder: number;
}

export interface MatrixStressReport {
  kind: 'matrix-stress';
  schemaVersion: 1;
  attempts: number;
  concurrency: number;
  agents: string[];
  trials: number;
  tasks: number;
  passed: boolean;
  checks: StressCheck[];
  runs: StressRunFigures[];
  memory: { sampledPeakRssMb: number; maxRssMb: number; sampleMs: number };
  node: string;
  fault?: StressFault;
}

const SAMPLE_MS = 20;

export async function runMatrixStress(options: MatrixStressOptions): Promise<MatrixStressReport> {
  const dir = await mkdtemp(join(tmpdir(), 'crucible-matrix-stress-'));
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, SAMPLE_MS);
  sampler.unref();
  try {
    const taskCount = Math.ceil(options.attempts / (STRESS_AGENTS.length * STRESS_TRIALS));
    const tasks = stressTasks(dir, taskCount);
    const checks: StressCheck[] = [];
    const runs: StressRunFigures[] = [];
    const labels: Array<'full' | 'fail-fast'> = options.failFast === false ? ['full'] : ['full', 'fail-fast'];
    for (const label of labels) {
      const log: RunnerLog = { submitted: [], finished: [] };
      const started = performance.now();
      const outcome = await executeRun({
        taskSetFile: 'synthetic.yaml',
        taskSetPath: join(dir, 'synthetic.yaml'),
        tasks,
        agents: [...STRESS_AGENTS],
        trials: STRESS_TRIALS,
        stateDir: join(dir, 'state'),
        settings: { sandbox: 'local' },
        concurrency: options.concurrency,
        failFast: label === 'fail-fast',
        runAttempt: stressRunner(log, options.fault),
        resolveAgent: stressAgent,
        preflight: false,
        seed: 1,
      });
      const seconds = (performance.now() - started) / 1000;
      peak = Math.max(peak, process.memoryUsage.rss());
      const audit = await auditRun(label, outcome, log, join(dir, 'state', 'history.db'));
      checks.push(...audit.checks);
      runs.push({ ...audit.figures, seconds: round(seconds, 3), attemptsPerSecond: Math.round(audit.figures.executed / Math.max(seconds, 1e-6)) });
    }
    return {
      kind: 'matrix-stress',
      schemaVersion: 1,
      attempts: options.attempts,
      concurrency: options.concurrency,
      agents: [...STRESS_AGENTS],
      trials: STRESS_TRIALS,
      tasks: taskCount,
      passed: checks.every((c) => c.passed),
      checks,
      runs,
      memory: { sampledPeakRssMb: round(peak / 2 ** 20, 1), maxRssMb: round(process.resourceUsage().maxRSS / 1024, 1), sampleMs: SAMPLE_MS },
      node: process.version,
      ...(options.fault ? { fault: options.fault } : {}),
    };
  } finally {
    clearInterval(sampler);
    await rm(dir, { recursive: true, force: true });
  }
}

async function auditRun(
  run: 'full' | 'fail-fast',
  outcome: RunOutcome,
  log: RunnerLog,
  historyPath: string,
): Promise<{ checks: StressCheck[]; figures: Omit<StressRunFigures, 'seconds' | 'attemptsPerSecond'> }> {
  const { summary, runDir } = outcome;
  const plan = (await readPlanFile(runDir, summary.runId)).attempts;
  const planIds = new Set(plan.map((a) => a.attemptId));
  const submitted = new Set(log.submitted);
  const skipped = plan.filter((a) => !submitted.has(a.attemptId)).length;
  const checkpoint = await readCheckpoint(runDir);
  const history = openHistory(historyPath, { readonly: true });
  let historyRows: number;
  try {
    historyRows = history.countAttempts({ runId: summary.runId });
  } finally {
    history.close();
  }
  const rows = summary.attempts;
  const checks: StressCheck[] = [];
  const check = (id: string, passed: boolean, detail: string): void => void checks.push({ run, id, passed, detail });

  const strangers = log.submitted.filter((id) => !planIds.has(id)).length;
  const twice = log.submitted.length - submitted.size;
  check(
    'planned = submitted + skipped',
    summary.planned === plan.length && plan.length === submitted.size + skipped && strangers === 0 && twice === 0 && (run === 'fail-fast' || skipped === 0),
    `planned ${summary.planned} (plan.json ${plan.length}), submitted ${submitted.size}, skipped ${skipped}, submitted twice ${twice}, not in the plan ${strangers}`,
  );
  check('executed = submitted', summary.executed === submitted.size, `executed ${summary.executed}, submitted ${submitted.size}`);
  check(
    'checkpoint rows = executed',
    checkpoint.entries.length === summary.executed && checkpoint.duplicates === 0 && checkpoint.malformed === 0,
    `checkpoint ${checkpoint.entries.length} rows (${checkpoint.duplicates} repeated ids, ${checkpoint.malformed} torn)`,
  );
  check('history rows = executed', historyRows === summary.executed, `history.db holds ${historyRows} attempts of run ${summary.runId}`);

  const identities = rows.map((a) => `${a.taskId}|${a.agent}|${a.trial}`);
  const byId = new Map(plan.map((a) => [a.attemptId, a]));
  const mismatched = rows.filter((a) => {
    const planned = byId.get(a.attemptId);
    return planned === undefined || planned.taskId !== a.taskId || planned.agent !== a.agent || planned.trial !== a.trial;
  }).length;
  const dupIdentities = identities.length - new Set(identities).size;
  const dupIds = rows.length - new Set(rows.map((a) => a.attemptId)).size;
  const checkpointIdentities = checkpoint.entries.map((e) => `${e.taskId}|${e.agent}|${e.trial}`);
  const dupCheckpoint = checkpointIdentities.length - new Set(checkpointIdentities).size + checkpoint.duplicates;
  check(
    'no duplicate identity',
    dupIdentities === 0 && dupIds === 0 && dupCheckpoint === 0 && mismatched === 0,
    `repeated (task, agent, trial): ${dupIdentities} in summary, ${dupCheckpoint} in checkpoint; repeated attempt ids ${dupIds}; rows not matching their plan entry ${mismatched}`,
  );

  const position = new Map(plan.map((a, i) => [a.attemptId, i]));
  const positions = rows.map((a) => position.get(a.attemptId) ?? -1);
  const inOrder = positions.every((p, i) => p >= 0 && (i === 0 || p > (positions[i - 1] as number)));
  const finishedOutOfOrder = log.finished.filter((id, i) => i > 0 && (position.get(id) ?? 0) < (position.get(log.finished[i - 1] as string) ?? 0)).length;
  check('stable order', inOrder, `summary rows in plan order: ${inOrder ? 'yes' : 'no'}; ${finishedOutOfOrder} attempt(s) finished before one planned earlier`);

  const expectedPasses = rows.filter((a) => expectedPass(a.taskId, a.agent, a.trial)).length;
  const agentsOk = STRESS_AGENTS.every((agent) => {
    const mine = rows.filter((a) => a.agent === agent);
    const stats = summary.stats.agents.find((s) => s.agent === agent);
    const passes = mine.filter((a) => expectedPass(a.taskId, a.agent, a.trial)).length;
    return mine.length === 0 ? stats === undefined || stats.attempts === 0 : stats?.attempts === mine.length && stats.passes === passes;
  });
  check(
    'aggregates = arithmetic',
    summary.counts.PASS === expectedPasses && summary.counts.FAIL === rows.length - expectedPasses && summary.stats.attempts === rows.length && agentsOk,
    `PASS ${summary.counts.PASS} (expected ${expectedPasses}), FAIL ${summary.counts.FAIL}, stats over ${summary.stats.attempts} attempts, per-agent passes ${agentsOk ? 'match' : 'differ'}`,
  );

  if (run === 'fail-fast') {
    const culprit = summary.failedFast;
    const failed = culprit === undefined ? undefined : rows.find((a) => a.attemptId === culprit.attemptId);
    check(
      'fail-fast accounting',
      summary.ended === 'fail-fast' &&
        summary.stoppedEarly &&
        failed !== undefined &&
        failed.verdict !== 'PASS' &&
        skipped > 0 &&
        summary.executed < summary.planned,
      `ended ${summary.ended}; stopped by ${culprit ? `${culprit.attemptId} (${failed?.verdict ?? 'not recorded'})` : 'nothing'}; ${summary.executed} of ${summary.planned} executed, ${skipped} never started`,
    );
  } else {
    check('completed', summary.ended === 'completed' && !summary.stoppedEarly, `ended ${summary.ended}`);
  }
  return {
    checks,
    figures: {
      run,
      runId: summary.runId,
      ended: summary.ended,
      planned: plan.length,
      submitted: submitted.size,
      skipped,
      executed: summary.executed,
      checkpointRows: checkpoint.entries.length,
      historyRows,
      finishedOutOfOrder,
    },
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
