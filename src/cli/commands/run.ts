import { relative } from 'node:path';
import pc from 'picocolors';
import { loadAgentCatalog, referenceAgentNames } from '../../agents/registry.js';
import { loadRunInput, resolveRunAgents } from '../../suite/index.js';
import {
  checkPlanSize,
  defaultConcurrency,
  executeRun,
  findRunDir,
  MAX_PLANNED_ATTEMPTS,
  readPlanFile,
  type RunOptions,
  type RunOutcome,
} from '../../engine/index.js';
import { InputError } from '../../errors.js';
import { formatDefect, selectTasks } from '../../tasks/index.js';
import { withFlagNames } from '../option-flags.js';
import { startSandboxChoice } from '../sandbox-choice.js';
import type { SandboxKind } from '../../sandbox/executor.js';
import type { GuardMode } from '../../types/index.js';
import { wholeNumber, writableStateDir } from '../args.js';
// The leaf, not report/index.js: that loads every report writer, which a run without reports never needs.
import { listItemOf } from '../../report/view.js';
import type { ModelCliOptions } from '../model-options.js';
import { formatUsageTable, modelRunOptions } from '../model-run.js';
import { formatRunReport } from '../format-run.js';
import { formatCostPerSolve } from '../format-cost.js';
import { guardCounts } from '../../guard/counts.js';
import { createProgress } from '../progress.js';
import { reporterOptions, writeRunReports, type ReporterCliOptions } from '../report-options.js';
import type { ReporterName } from '../../report/reporter.js';
import { QUEUE_CONCURRENCY, runAndReportOn } from '../queue-run.js';
import { ADAPTIVE_DEFAULT_RUNS, adaptiveRunOptions, type AdaptiveCliOptions } from '../adaptive-options.js';
import { describeAdaptiveStop } from '../../engine/index.js';

export interface RunCommandOptions extends ModelCliOptions, ReporterCliOptions, AdaptiveCliOptions {
  agent?: string[];
  /** `--agents FILE`: profiles that --agent may name. */
  agents?: string;
  task?: string[];
  tag?: string[];
  category?: string[];
  difficulty?: string[];
  runs?: string;
  concurrency?: string;
  failFast?: boolean;
  resume?: string;
  force?: boolean;
  retryErrors?: boolean;
  out: string;
  sandbox?: SandboxKind;
  keepWorkspace?: boolean;
  /** False with `--no-prepare-cache`. */
  prepareCache?: boolean;
  /** False with `--no-baseline-tests`. */
  baselineTests?: boolean;
  /** `--guard audit|enforce`: the online guard (commander checks the choice). */
  guard?: GuardMode;
  json?: boolean;
  quiet?: boolean;
  /** `--queue redis://…`: run the attempts on workers (docs/distributed.md). */
  queue?: string;
}

/** `crucible run <taskset|suite>`: a suite (docs/suites.md) runs all its task sets as one run. */
export async function runCommand(tasksetPath: string, opts: RunCommandOptions): Promise<void> {
  // Profiles and a suite's agents come from the file, so it loads before the agent and model flags are checked.
  const input = loadRunInput(tasksetPath);
  const flagAgents = [...(opts.agent ?? []), ...(opts.model ?? [])];
  if (flagAgents.length === 0 && input.agents === undefined) {
    const fix = `add --agent ${referenceAgentNames().join(' or --agent ')}${input.kind === 'suite' ? ', or an `agents:` list to the suite' : ''}`;
    throw new InputError(`no agent given (fix: ${fix})`);
  }
  const { profiles } = loadAgentCatalog({ taskSet: input.profiles, agentsFile: opts.agents });
  const runs = opts.runs === undefined ? (opts.adaptive ? ADAPTIVE_DEFAULT_RUNS : undefined) : wholeNumber('--runs', opts.runs, 1, 1, MAX_PLANNED_ATTEMPTS);
  const { agents, trials, agentTrials } = resolveRunAgents(input, { agents: flagAgents, ...(runs === undefined ? {} : { runs }) });
  const models = modelRunOptions(opts, agents, profiles);
  // Checked before anything loads: a bad URL is one line naming the flag.
  const queueFlag = opts.queue === undefined ? undefined : (await import('../../distributed/url.js')).parseQueueUrl('--queue', opts.queue).url;
  if (opts.force && !opts.resume) throw new InputError('--force only applies with --resume (fix: add --resume <run-id>, or drop --force)');
  if (opts.retryErrors && !opts.resume) throw new InputError('--retry-errors only applies with --resume (fix: add --resume <run-id>, or drop --retry-errors)');
  const resumed = opts.resume === undefined ? undefined : await withFlagNames(() => findRunDir(opts.out, opts.resume as string));
  // A distributed run resumes on its queue, as `crucible resume` does: the one plan.json recorded unless --queue moves it.
  const queue = queueFlag ?? (resumed ? (await readPlanFile(resumed.runDir, resumed.runId)).queue : undefined);
  const adaptive = adaptiveRunOptions(opts, opts.maxCostTotal);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, queue === undefined ? defaultConcurrency() : QUEUE_CONCURRENCY);
  // The sandbox check starts bwrap; it runs while the task set loads.
  const sandboxChoice = startSandboxChoice(opts.sandbox, agents, 'grade', opts.out);
  const selection = { taskIds: opts.task, tags: opts.tag, categories: opts.category, difficulties: opts.difficulty };
  const tasks = withFlagNames(() => selectTasks(input.tasks, selection, tasksetPath));
  withFlagNames(() => checkPlanSize(tasks.length, agents.length, trials));
  writableStateDir('--out', opts.out);
  const resume = resumed ? { runId: resumed.runId, force: opts.force === true, retryErrors: opts.retryErrors === true } : undefined;

  const sandbox = await sandboxChoice();
  const taskSets = new Map(tasks.flatMap((t) => (input.taskSets.has(t.id) ? [[t.id, input.taskSets.get(t.id) as string] as const] : [])));

  await runAndReportOn(
    queue,
    {
      taskSetFile: displayPath(input.file),
      taskSetPath: input.file,
      tasks,
      taskIndex: input.taskIndex,
      selection,
      agents,
      profiles,
      trials,
      ...(agentTrials ? { agentTrials } : {}),
      ...(taskSets.size > 0 ? { taskSets } : {}),
      stateDir: opts.out,
      settings: {
        sandbox,
        keepWorkspace: opts.keepWorkspace,
        ...(opts.prepareCache === false ? { prepareCache: false } : {}),
        ...(opts.baselineTests === false ? { baselineTests: false } : {}),
        // In plan.json's settings, so `resume` guards the rest of the run the same way.
        ...(opts.guard ? { guard: opts.guard } : {}),
      },
      concurrency,
      failFast: opts.failFast,
      resume,
      models,
      ...(adaptive ? { adaptive } : {}),
    },
    { ...opts, reporters: reporterOptions(opts, input.reporters) },
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
    outcome = await withFlagNames(
      () => executeRun({ ...options, observer: progress, signal: stop.signal, killSignal: kill.signal }),
      options.models?.mode === 'record' ? 'record' : 'replay',
    );
  } finally {
    progress.close();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
  const { summary, attempts, runDir } = outcome;
  const report = formatRunReport({
    runId: summary.runId,
    runDir,
    attempts: attempts.map(listItemOf),
    planned: summary.planned,
    executed: summary.executed,
    counts: summary.counts,
    stats: summary.stats,
    ended: summary.ended,
    failedFast: summary.failedFast,
    ...(summary.runBudget ? { runBudget: summary.runBudget } : {}),
    reused: summary.reused,
    agentInfo: Object.fromEntries(attempts.flatMap((a) => (a.agentInfo ? [[a.agent, a.agentInfo] as const] : []))),
    guard: guardCounts(attempts),
    ...(summary.failurePatterns ? { failurePatterns: summary.failurePatterns } : {}),
  });
  (output.json ? process.stderr : process.stdout).write(`\n${report}\n`);
  if (summary.adaptive) (output.json ? process.stderr : process.stdout).write(`\n${describeAdaptiveStop(summary.adaptive)}\n`);
  const usage = formatUsageTable(attempts);
  if (usage) (output.json ? process.stderr : process.stdout).write(`\n${usage}\n`);
  const costs = formatCostPerSolve(attempts);
  if (costs) (output.json ? process.stderr : process.stdout).write(`\n${costs}\n`);
  // Reports (report.md, report.html, results.sarif, results.junit.xml) go into the run directory.
  await writeRunReports(outcome, output.reporters, (line) => (output.json ? process.stderr : process.stdout).write(`${line}\n`));
  if (outcome.taskErrors.length > 0) (output.json ? process.stderr : process.stdout).write(`\n${formatTaskErrors(outcome.taskErrors)}\n`);
  if (output.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  // A broken task is bad input, like a bad flag: exit 2 says to fix the task set, not an agent.
  process.exitCode =
    summary.ended === 'interrupted'
      ? 130
      : outcome.taskErrors.length > 0
        ? 2
        : summary.counts.PASS === (summary.adaptive ? summary.executed : summary.planned)
          ? 0
          : 1;
  return outcome;
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

/** Relative to the working directory when under it, absolute otherwise (`../../x` reads badly in history). */
function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}
