import { relative } from 'node:path';
import pc from 'picocolors';
import { referenceAgentNames } from '../../agents/index.js';
import { loadTaskSet } from '../../config/index.js';
import { defaultConcurrency, executeRun, findRunDir, selectTasks, type RunOptions, type RunOutcome } from '../../engine/index.js';
import { InputError } from '../../errors.js';
import { resolveSandbox } from '../../sandbox/index.js';
import type { SandboxKind } from '../../sandbox/executor.js';
import { wholeNumber } from '../args.js';
import { attemptLine } from '../format.js';
import type { ModelCliOptions } from '../model-options.js';
import { formatUsageTable, modelRunOptions } from '../model-run.js';
import { formatRunReport } from '../format-run.js';
import { createProgress } from '../progress.js';
import { reporterOptions, writeRunReports, type ReporterCliOptions } from '../report-options.js';
import type { ReporterName } from '../../report/reporter.js';

export interface RunCommandOptions extends ModelCliOptions, ReporterCliOptions {
  agent?: string[];
  task?: string[];
  tag?: string[];
  category?: string[];
  difficulty?: string[];
  runs?: string;
  concurrency?: string;
  failFast?: boolean;
  resume?: string;
  force?: boolean;
  out: string;
  sandbox?: SandboxKind;
  keepWorkspace?: boolean;
  /** False with `--no-baseline-tests`. */
  baselineTests?: boolean;
  json?: boolean;
  quiet?: boolean;
}

export async function runCommand(tasksetPath: string, opts: RunCommandOptions): Promise<void> {
  const agents = [...(opts.agent ?? []), ...(opts.model ?? [])];
  const models = modelRunOptions(opts, agents);
  if (agents.length === 0) throw new InputError(`no agent given (fix: add --agent ${referenceAgentNames().join(' or --agent ')})`);
  const trials = wholeNumber('--runs', opts.runs, 1);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  if (opts.force && !opts.resume) throw new InputError('--force only applies with --resume (fix: add --resume <run-id>, or drop --force)');
  // Reference agents run only code the task author wrote, so a missing sandbox may fall back.
  const trusted = agents.every((a) => referenceAgentNames().includes(a));
  // The sandbox check starts bwrap; it runs while the task set loads. The catch only keeps a bad
  // task set's error from leaving this promise unobserved; awaiting it below still throws.
  const sandboxCheck = resolveSandbox(opts.sandbox, { allowFallback: trusted });
  sandboxCheck.catch(() => undefined);
  const taskSet = loadTaskSet(tasksetPath);
  const selection = { taskIds: opts.task, tags: opts.tag, categories: opts.category, difficulties: opts.difficulty };
  const tasks = selectTasks(taskSet.tasks, selection, tasksetPath);
  const resume = opts.resume ? { runId: (await findRunDir(opts.out, opts.resume)).runId, force: opts.force === true } : undefined;

  const sandbox = await sandboxCheck;
  if (sandbox.warning) process.stderr.write(`${pc.yellow('warning')} ${sandbox.warning}\n`);

  await runAndReport(
    {
      taskSetFile: displayPath(taskSet.file),
      taskSetPath: taskSet.file,
      tasks,
      selection,
      agents,
      trials,
      stateDir: opts.out,
      settings: { sandbox: sandbox.kind, keepWorkspace: opts.keepWorkspace, ...(opts.baselineTests === false ? { baselineTests: false } : {}) },
      concurrency,
      failFast: opts.failFast,
      resume,
      models,
    },
    { ...opts, reporters: reporterOptions(opts, taskSet.reporters) },
  );
}

/**
 * Runs with a progress view on stderr and Ctrl-C handling, then prints the report (stdout, or
 * stderr under --json, where stdout carries only the summary) and sets the exit code:
 * 0 every planned attempt passed, 1 some failed, errored or did not run, 130 interrupted.
 */
export async function runAndReport(
  options: Omit<RunOptions, 'observer' | 'signal' | 'killSignal'>,
  output: { json?: boolean; quiet?: boolean; reporters?: ReporterName[] },
): Promise<RunOutcome> {
  const progress = createProgress({ stream: process.stderr, quiet: output.quiet });
  const stop = new AbortController();
  const kill = new AbortController();
  const onSigint = (): void => (stop.signal.aborted ? kill.abort() : stop.abort());
  const onSigterm = (): void => kill.abort();
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  let outcome: RunOutcome;
  try {
    outcome = await executeRun({ ...options, observer: progress, signal: stop.signal, killSignal: kill.signal });
  } finally {
    progress.close();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
  const { summary, attempts, runDir } = outcome;
  const report = formatRunReport({
    runId: summary.runId,
    runDir,
    attempts: attempts.map(attemptLine),
    planned: summary.planned,
    executed: summary.executed,
    counts: summary.counts,
    stats: summary.stats,
    ended: summary.ended,
    failedFast: summary.failedFast,
    reused: summary.reused,
  });
  (output.json ? process.stderr : process.stdout).write(`\n${report}\n`);
  const usage = formatUsageTable(attempts);
  if (usage) (output.json ? process.stderr : process.stdout).write(`\n${usage}\n`);
  // Reports (report.md, report.html, results.sarif, results.junit.xml) go into the run directory.
  await writeRunReports(outcome, output.reporters, (line) => (output.json ? process.stderr : process.stdout).write(`${line}\n`));
  if (output.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  process.exitCode = summary.ended === 'interrupted' ? 130 : summary.counts.PASS === summary.planned ? 0 : 1;
  return outcome;
}

/** Relative to the working directory when under it, absolute otherwise (`../../x` reads badly in history). */
function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}
