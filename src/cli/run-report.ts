import pc from 'picocolors';
import { executeRun, describeAdaptiveStop, type RunOptions, type RunOutcome } from '../engine/index.js';
import { guardCounts } from '../domain/guard/index.js';
// The leaf, not report/index.js: that loads every report writer, which a run without reports never needs.
import { listItemOf } from '../features/report/index.js';
import type { ReporterName } from '../features/report/index.js';
import { formatDefect } from '../domain/tasks/index.js';
import { InputError } from '../core/errors.js';
import { runExitCode, type ExitCode } from './exit.js';
import { formatCostPerSolve } from './format-cost.js';
import { formatRunReport } from './format-run.js';
import type { CliIo } from './io.js';
import { formatUsageTable } from './model-run.js';
import { withFlagNames } from './option-flags.js';
import { writeRunReports } from './report-options.js';
import { withRunSession } from './run-session.js';
import { formatStrengthSummary, snapshotForRun } from '../features/strength/index.js';

export interface RunReportOutput {
  json?: boolean;
  quiet?: boolean;
  reporters?: ReporterName[];
  /** Called on the first Ctrl-C, beside the session stopping the run (a queue withdraws its jobs). */
  onInterrupt?: () => void;
}

/**
 * Runs in a run session (progress view on stderr, Ctrl-C stopping it), then prints the report
 * (stdout, or stderr under --json, where stdout carries only the summary) and writes the run's
 * reports. `run`, `resume` and `grade` end with runOutcomeExit of what it returns.
 */
export async function runAndReport(io: CliIo, options: Omit<RunOptions, 'observer' | 'signal' | 'killSignal'>, output: RunReportOutput): Promise<RunOutcome> {
  const outcome = await withRunSession(
    io,
    { quiet: output.quiet, onSignal: (stage) => (stage === 'stop' ? output.onInterrupt?.() : undefined) },
    async (session, progress) => {
      const ran = await withFlagNames(
        () => executeRun({ ...options, observer: progress, signal: session.stop, killSignal: session.kill }),
        options.models?.mode === 'record' ? 'record' : 'replay',
      );
      // Every task broken: the run is said in one line below, without its start-up lines.
      if (everyTaskBroken(ran) !== undefined) progress.discard();
      return ran;
    },
  );
  const { summary, attempts, runDir } = outcome;
  const broken = everyTaskBroken(outcome);
  if (broken !== undefined) {
    // --json still hands a script the summary (where the task errors are recorded), and no table.
    if (output.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    throw new InputError(broken);
  }
  const report = formatRunReport(
    {
      runId: summary.runId,
      runDir,
      attempts: attempts.map(listItemOf),
      planned: summary.planned,
      executed: summary.executed,
      counts: summary.counts,
      stats: summary.stats,
      ended: summary.ended,
      ...(summary.adaptive ? { adaptive: summary.adaptive } : {}),
      failedFast: summary.failedFast,
      ...(summary.runBudget ? { runBudget: summary.runBudget } : {}),
      reused: summary.reused,
      agentInfo: Object.fromEntries(attempts.flatMap((a) => (a.agentInfo ? [[a.agent, a.agentInfo] as const] : []))),
      guard: guardCounts(attempts),
      ...(summary.failurePatterns ? { failurePatterns: summary.failurePatterns } : {}),
    },
    io.cwd,
  );
  // The task set's strength (validate --strength), beside the pass rates it qualifies; the run's reports read the same snapshot.
  const strength = await snapshotForRun(options.stateDir, options.tasks, runDir);
  const out = output.json ? io.stderr : io.stdout;
  out.write(`\n${report}\n`);
  if (strength)
    out.write(`task strength: ${formatStrengthSummary(strength)} ${pc.dim('(near-miss wrong fixes the tests fail: crucible validate --strength)')}\n`);
  if (summary.adaptive) out.write(`\n${describeAdaptiveStop(summary.adaptive)}\n`);
  const usage = formatUsageTable(attempts);
  if (usage) out.write(`\n${usage}\n`);
  const costs = formatCostPerSolve(attempts);
  if (costs) out.write(`\n${costs}\n`);
  // Reports (report.md, report.html, results.sarif, results.junit.xml) go into the run directory.
  await writeRunReports(outcome, output.reporters, (line) => out.write(`${line}\n`), io.cwd);
  if (outcome.taskErrors.length > 0) out.write(`\n${formatTaskErrors(outcome.taskErrors)}\n`);
  if (output.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  return outcome;
}

/**
 * A run's exit code: 130 interrupted, 2 when a task is broken (bad input, like a bad flag: fix the
 * task set, not an agent), 0 when every planned attempt passed, 1 otherwise.
 */
export function runOutcomeExit(outcome: RunOutcome): ExitCode {
  const { summary } = outcome;
  return runExitCode({
    interrupted: summary.ended === 'interrupted',
    taskErrors: outcome.taskErrors.length,
    passed: summary.counts.PASS === (summary.adaptive ? summary.executed : summary.planned),
  });
}

/**
 * When every planned attempt's task is broken, no agent ran and there are no results: the run is
 * bad input like a bad flag, said in one line (the first defect, how many more), with no result
 * table before it. A run with any sound task reports as usual, its broken tasks after the table.
 */
function everyTaskBroken(outcome: RunOutcome): string | undefined {
  const { summary, attempts, taskErrors } = outcome;
  if (taskErrors.length === 0 || summary.ended === 'interrupted') return undefined;
  if (attempts.length === 0 || attempts.some((a) => a.cause !== 'task_error')) return undefined;
  const defects = taskErrors.flatMap((t) => t.defects);
  const [first] = defects;
  if (first === undefined) return undefined;
  const more = defects.length > 1 ? `; and ${defects.length - 1} more defect(s)` : '';
  const tasks = taskErrors.length === 1 ? 'the task is broken' : `all ${taskErrors.length} tasks are broken`;
  return `${tasks}, so no agent ran (run ${summary.runId}): ${formatDefect(first)}${more}`;
}

/** The task errors the preflight found: one line per defect, naming file, field and fix. */
export function formatTaskErrors(taskErrors: RunOutcome['taskErrors']): string {
  const lines = taskErrors.flatMap(({ taskId, defects }) => [
    `${pc.red('task error')} ${taskId}: no agent ran on it`,
    ...defects.map((d) => `  ${formatDefect(d)}`),
  ]);
  const n = taskErrors.length;
  return `${lines.join('\n')}\n${pc.red(`${n} task${n === 1 ? ' is' : 's are'} broken`)} ${pc.dim('(task errors are left out of every pass rate; fix the task set and run again)')}`;
}
