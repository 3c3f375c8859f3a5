import { randomInt } from 'node:crypto';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { loadAgentCatalog } from '../../domain/agents/index.js';
import { readBaseline, readRunOutcomes, type BaselineFile } from '../../features/baseline/index.js';
import { loadRunInput, type RunInput } from '../../features/suite/index.js';
import { defaultConcurrency, executeRun, MAX_PLANNED_ATTEMPTS, newRunId } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import {
  applyAdaptiveGate,
  evaluateGate,
  formatGate,
  gateTarget,
  pairAgents,
  gateMarkdown,
  versionMismatchError,
  versionMismatches,
  type GateReport,
  type GateThresholds,
  type VersionMismatch,
} from '../../features/gate/index.js';
import { openHistory } from '../../infra/store/index.js';
import { readStrengthFile, snapshotForRun } from '../../features/strength/index.js';
import { runFile } from '../../domain/run-dir/index.js';
import { gateFutile, gateSequence } from '../../domain/stats/index.js';
import type { AdaptiveRunOptions, AdaptiveStop } from '../../engine/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import type { Task } from '../../core/types/index.js';
import { wholeNumber, writableStateDir } from '../args.js';
import { historyPath } from '../history-reader.js';
import type { ModelCliOptions } from '../model-options.js';
import { modelRunOptions } from '../model-run.js';
import { withFlagNames } from '../option-flags.js';
import { withRunSession } from '../run-session.js';
import { startSandboxChoice } from '../sandbox-choice.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';
import { ADAPTIVE_DEFAULT_RUNS, fraction } from '../adaptive-options.js';

export interface GateCommandOptions extends ModelCliOptions {
  adaptive?: boolean;
  maxAttempts?: string;
  alpha?: string;
  baseline: string;
  run?: string;
  agent?: string[];
  agents?: string;
  runs?: string;
  concurrency?: string;
  minSuccessRate?: string;
  maxDrop?: string;
  maxRegressedTasks?: string;
  minStrength?: string;
  allowVersionMismatch?: boolean;
  sandbox?: SandboxKind;
  out: string;
  json?: boolean;
  quiet?: boolean;
}

/** The tasks of a task set or a suite (a suite's ids are `<set>/<task>`, as its runs and baselines name them). */
export function loadTasksForGate(path: string): RunInput {
  return loadRunInput(path);
}

/** `crucible gate <taskset> --baseline FILE`: run (or take `--run`), compare with the baseline, exit 0/1/2. */
export async function gateCommand(path: string, opts: GateCommandOptions, io: CliIo): Promise<void> {
  const baseline = readBaseline(opts.baseline);
  const thresholds = parseThresholds(opts);
  const adaptive = parseAdaptive(opts);
  writableStateDir('--out', opts.out, io.cwd);
  let mismatches: VersionMismatch[];
  let runId: string;
  if (opts.run !== undefined) {
    if (opts.agent !== undefined || opts.runs !== undefined)
      throw new InputError('--agent and --runs choose what a gate runs; with --run nothing runs (fix: drop them, or drop --run)');
    if (adaptive)
      throw new InputError(
        '--adaptive chooses how a gate runs; with --run nothing runs, and a run made by `gate --adaptive` is judged by its own test (fix: drop --adaptive and its budget)',
      );
    const found = await withFlagNames(() => readRunOutcomes(opts.out, opts.run as string));
    mismatches = versionMismatches(baseline, found.plan.tasks);
    if (mismatches.length > 0 && !opts.allowVersionMismatch) throw versionMismatchError(mismatches, opts.baseline);
    runId = found.runId;
  } else {
    const loaded = loadTasksForGate(path);
    const wanted = new Set(baseline.entries.map((e) => e.taskId));
    // Only the baseline's tasks can be compared, so only they run.
    const tasks = loaded.tasks.filter((t) => wanted.has(t.id));
    if (tasks.length === 0)
      throw new InputError(
        `${path}: none of its tasks is in baseline ${opts.baseline} (fix: gate the task set the baseline was saved from, ${baseline.taskSet} relative to the baseline file)`,
      );
    // Checked before any agent runs: a changed task would waste the whole run.
    mismatches = versionMismatches(baseline, tasks);
    if (mismatches.length > 0 && !opts.allowVersionMismatch) throw versionMismatchError(mismatches, opts.baseline);
    const ran = await runForGate(loaded, tasks, baseline, opts, io, adaptive, thresholds.maxDrop);
    if (ran === undefined) {
      exitWith(EXIT.interrupted);
      return;
    }
    runId = ran;
  }
  const run = await readRunOutcomes(opts.out, runId);
  // The run directory's strength.json: what `run` (or the gate's own run) found measured for its tasks' content.
  const strength = thresholds.minStrength === undefined ? undefined : (await readStrengthFile(run.runDir))?.tasks;
  const fixed = evaluateGate(baseline, run, thresholds, { baselineFile: opts.baseline, versionMismatches: mismatches, ...(strength ? { strength } : {}) });
  const target = run.plan.adaptive?.target;
  const evaluation = target?.kind === 'gate' ? applyAdaptiveGate(fixed, target, run.attempts, await adaptiveStop(run.runDir)) : fixed;

  const id = `gate-${newRunId()}`;
  const reportDir = join(resolve(opts.out), 'gates', id);
  const report: GateReport = {
    id,
    createdAt: new Date().toISOString(),
    reportDir,
    runId: run.runId,
    taskSet: run.plan.taskSet,
    baseline: { file: opts.baseline, sourceRun: baseline.sourceRun, createdAt: baseline.createdAt },
    thresholds,
    ...evaluation,
  };
  await mkdir(reportDir, { recursive: true });
  await writeFile(join(reportDir, 'gate.json'), `${JSON.stringify(report, null, 2)}\n`);
  const markdown = gateMarkdown(report);
  await writeFile(join(reportDir, 'gate.md'), markdown);
  const summary = io.env.GITHUB_STEP_SUMMARY;
  if (summary) {
    try {
      await appendFile(summary, `${markdown}\n`);
    } catch (error) {
      io.stderr.write(`warning: could not append to GITHUB_STEP_SUMMARY ${summary} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`);
    }
  }
  recordInHistory(opts.out, report, io);
  if (opts.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout.write(`${formatGate(report)}\n`);
  exitWith(report.verdict === 'PASS' ? EXIT.ok : EXIT.failed);
}

function parseThresholds(opts: GateCommandOptions): GateThresholds {
  const number = (flag: string, text: string | undefined, min: number, max: number, example: string): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max)
      throw new InputError(`${flag} ${text}: expected a number from ${min} to ${max} (fix: e.g. ${flag} ${example})`);
    return value;
  };
  const min = number('--min-success-rate', opts.minSuccessRate, 0, 100, '80');
  return {
    ...(min !== undefined ? { minSuccessRate: min / 100 } : {}),
    maxDrop: number('--max-drop', opts.maxDrop, 0, 100, '5') ?? 0,
    maxRegressedTasks: wholeNumber('--max-regressed-tasks', opts.maxRegressedTasks, 0, 0),
    ...(opts.minStrength === undefined ? {} : { minStrength: fraction('--min-strength', opts.minStrength, '0.8') }),
  };
}

interface GateAdaptiveFlags {
  maxAttempts?: number;
  confidence: number;
}

/** `--adaptive` with its budget (`--max-attempts`, `--max-cost-total` or both) and `--alpha`; undefined without --adaptive. */
function parseAdaptive(opts: GateCommandOptions): GateAdaptiveFlags | undefined {
  if (!opts.adaptive) {
    const stray = opts.maxAttempts !== undefined ? '--max-attempts' : opts.alpha !== undefined ? '--alpha' : undefined;
    if (stray) throw new InputError(`${stray} only applies with --adaptive (fix: add --adaptive, or drop ${stray})`);
    return undefined;
  }
  if (opts.maxAttempts === undefined && opts.maxCostTotal === undefined)
    throw new InputError('gate --adaptive needs a budget (fix: add --max-attempts <n>, e.g. --max-attempts 200, or --max-cost-total <usd>)');
  const confidence = 1 - (opts.alpha === undefined ? 0.05 : fraction('--alpha', opts.alpha, '0.05'));
  return { ...(opts.maxAttempts === undefined ? {} : { maxAttempts: wholeNumber('--max-attempts', opts.maxAttempts, 200, 1) }), confidence };
}

/** Why the run's adaptive design stopped, from its summary.json; undefined when it has none yet. */
async function adaptiveStop(runDir: string): Promise<AdaptiveStop | undefined> {
  try {
    const summary = JSON.parse(await readFile(runFile(runDir, 'summary'), 'utf8')) as { adaptive?: { stopped?: AdaptiveStop } };
    return summary.adaptive?.stopped;
  } catch {
    return undefined;
  }
}

/** Runs the gated tasks with executeRun, as `crucible run` does; returns the new run's id. */
async function runForGate(
  loaded: RunInput,
  tasks: Task[],
  baseline: BaselineFile,
  opts: GateCommandOptions,
  io: CliIo,
  flags: GateAdaptiveFlags | undefined,
  maxDrop: number,
): Promise<string | undefined> {
  const agents = opts.agent ?? [...new Set(baseline.entries.map((e) => e.agent.spec))].sort();
  const { profiles } = loadAgentCatalog({ taskSet: loaded.profiles, agentsFile: opts.agents });
  const models = modelRunOptions(opts, agents, profiles);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  let adaptive: AdaptiveRunOptions | undefined;
  let trials: number;
  if (flags) {
    const pairs = pairAgents([...new Set(baseline.entries.map((e) => e.agent.spec))].sort(), agents, opts.baseline);
    // A seed drawn before any attempt runs: the draws cannot depend on outcomes; plan.json keeps it for resume.
    const target = gateTarget(
      baseline,
      pairs,
      tasks.map((t) => t.id),
      { maxDrop, confidence: flags.confidence, batch: concurrency, seed: randomInt(2 ** 31) },
    );
    if (target.tasks.length === 0)
      throw new InputError(
        `baseline ${opts.baseline}: no gated task has a scored baseline attempt (fix: save the baseline from a run whose attempts were graded)`,
      );
    if (flags.maxAttempts !== undefined) {
      const budget = flags.maxAttempts;
      if (target.agents.every((g) => gateFutile(gateSequence([], g, target.tasks, target), budget)))
        throw new InputError(
          `--max-attempts ${budget}: too few for the anytime test to decide at --alpha ${Number((1 - flags.confidence).toPrecision(6))} even if every attempt went one way (fix: raise --max-attempts, or gate without --adaptive)`,
        );
    }
    tasks = tasks.filter((t) => target.tasks.includes(t.id));
    // Draws are uniform over tasks, so one task may take several times its share of the budget.
    const share = flags.maxAttempts === undefined ? ADAPTIVE_DEFAULT_RUNS : Math.ceil((3 * flags.maxAttempts) / tasks.length);
    const fallback = Math.min(Math.max(ADAPTIVE_DEFAULT_RUNS, share), Math.floor(MAX_PLANNED_ATTEMPTS / (tasks.length * agents.length)));
    trials = wholeNumber('--runs', opts.runs, fallback, 1, MAX_PLANNED_ATTEMPTS);
    adaptive = { target, ...(flags.maxAttempts !== undefined ? { maxAttempts: flags.maxAttempts } : {}) };
  } else trials = wholeNumber('--runs', opts.runs, baseline.trials, 1, MAX_PLANNED_ATTEMPTS);
  const sandbox = await startSandboxChoice(io, opts.sandbox, agents)();
  const rel = relative(io.cwd, loaded.file);
  const outcome = await withRunSession(io, { quiet: opts.quiet }, (session, progress) =>
    withFlagNames(() =>
      executeRun({
        taskSetFile: rel === '' || rel.startsWith('..') ? loaded.file : rel,
        taskSetPath: loaded.file,
        tasks,
        taskIndex: loaded.taskIndex,
        ...(loaded.kind === 'suite' ? { taskSets: loaded.taskSets } : {}),
        agents,
        profiles,
        trials,
        stateDir: opts.out,
        settings: { sandbox },
        concurrency,
        models,
        ...(adaptive ? { adaptive } : {}),
        observer: progress,
        signal: session.stop,
        killSignal: session.kill,
      }),
    ),
  );
  if (outcome.summary.ended === 'interrupted') {
    io.stderr.write(
      `gate: run ${outcome.summary.runId} was interrupted, nothing was judged (\`crucible resume ${outcome.summary.runId}\`, then gate it with --run ${outcome.summary.runId})\n`,
    );
    return undefined;
  }
  // As `crucible run` does: the run directory keeps the strength its tasks were measured at.
  await snapshotForRun(opts.out, tasks, outcome.runDir);
  if (outcome.taskErrors.length > 0)
    throw new InputError(
      `gate: ${outcome.taskErrors.map((t) => t.taskId).join(', ')} broken in run ${outcome.summary.runId} (fix: \`crucible validate ${loaded.file}\` names the field to fix)`,
    );
  return outcome.summary.runId;
}

/** The history row of the gate; the gate's verdict does not depend on it, so failing is a warning. */
function recordInHistory(stateDir: string, report: GateReport, io: CliIo): void {
  try {
    const history = openHistory(historyPath(stateDir));
    try {
      history.recordEvaluation({
        id: report.id,
        kind: 'gate',
        createdAt: report.createdAt,
        verdict: report.verdict,
        title: `gate ${report.verdict}: run ${report.runId} vs baseline ${report.baseline.file}${report.failures.length > 0 ? ` (${report.failures.length} rule(s) failed)` : ''}`,
        runId: report.runId,
        reportDir: report.reportDir,
        detail: report as unknown as Record<string, unknown>,
      });
    } finally {
      history.close();
    }
  } catch (error) {
    io.stderr.write(
      `warning: the gate was not recorded in the history (${error instanceof Error ? error.message : String(error)}); ${report.reportDir}/gate.json has it\n`,
    );
  }
}
