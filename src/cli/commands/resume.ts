import { existsSync } from 'node:fs';
import pc from 'picocolors';
import { referenceAgentNames } from '../../domain/agents/index.js';
import { loadRunInput } from '../../features/suite/index.js';
import { defaultConcurrency, findRunDir, readPlanFile, type AttemptSettings } from '../../engine/index.js';
import { withFlagNames } from '../option-flags.js';
import type { ModelRunOptions } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { resolveSandbox, type SandboxKind } from '../../infra/sandbox/index.js';
import type { Task } from '../../core/types/index.js';
import { wholeNumber } from '../args.js';
import { QUEUE_CONCURRENCY, runAndReportOn } from '../queue-run.js';
import { runOutcomeExit } from '../run-report.js';
import { exitWith } from '../exit.js';
import type { CliIo } from '../io.js';

export interface ResumeCommandOptions {
  out: string;
  concurrency?: string;
  failFast?: boolean;
  force?: boolean;
  retryErrors?: boolean;
  json?: boolean;
  quiet?: boolean;
  /** `--queue`: another URL for the run's queue (the server moved); default the one plan.json recorded. */
  queue?: string;
}

/** Continues a run from its plan.json: same task set, tasks, agents, runs and settings. */
export async function resumeCommand(runIdPrefix: string, opts: ResumeCommandOptions, io: CliIo): Promise<void> {
  const { runId, runDir } = await withFlagNames(() => findRunDir(opts.out, runIdPrefix));
  const plan = await readPlanFile(runDir, runId);
  // A distributed run reattaches to its queue: jobs the workers finished meanwhile are read back.
  const queue = opts.queue ?? plan.queue;
  const concurrency = wholeNumber('--concurrency', opts.concurrency, queue === undefined ? defaultConcurrency() : QUEUE_CONCURRENCY);
  if (!existsSync(plan.taskSetPath)) {
    throw new InputError(
      `run ${runId}: its task set ${plan.taskSetPath} is gone (fix: restore it, or run \`crucible run <taskset> --resume ${runId} --force\` with its new path)`,
    );
  }
  // A suite reloads as a suite: its task ids are `<set>/<task>`.
  const input = loadRunInput(plan.taskSetPath);
  const byId = new Map(input.tasks.map((t) => [t.id, t]));
  const missing = plan.tasks.filter((t) => !byId.has(t.id)).map((t) => t.id);
  if (missing.length > 0 && !opts.force) {
    throw new InputError(
      `run ${runId}: task${missing.length > 1 ? 's' : ''} ${missing.join(', ')} no longer in ${plan.taskSet} (fix: pass --force to drop them, or restore them)`,
    );
  }
  const tasks = plan.tasks.flatMap((t) => byId.get(t.id) ?? []) as Task[];
  if (tasks.length === 0) throw new InputError(`run ${runId}: none of its tasks is left in ${plan.taskSet} (fix: start a new run)`);

  // A `crucible grade` run: its agents are its predictions' patches, read again and checked.
  const graded = plan.predictions ? { ...(await import('../../features/grade/index.js')).gradeResume(plan, tasks), predictions: plan.predictions } : {};
  const settings = plan.settings as AttemptSettings;
  const kind = settings.sandbox as SandboxKind;
  // A grading run's agents are patches from elsewhere, whatever their names.
  const trusted = !plan.predictions && plan.agents.every((a) => referenceAgentNames().includes(a));
  const sandbox = await resolveSandbox(kind, { allowFallback: trusted, stateDir: opts.out });
  if (sandbox.warning) io.stderr.write(`${pc.yellow('warning')} ${sandbox.warning}\n`);

  const outcome = await runAndReportOn(
    io,
    queue,
    {
      taskSetFile: plan.taskSet,
      taskSetPath: plan.taskSetPath,
      tasks,
      selection: plan.selection,
      ...(plan.taskSets ? { taskSets: new Map(Object.entries(plan.taskSets)) } : {}),
      ...(plan.agentTrials ? { agentTrials: plan.agentTrials } : {}),
      taskIndex: input.taskIndex,
      agents: plan.agents,
      // The profiles the run started with, whatever the files say now.
      ...(plan.profiles ? { profiles: new Map(plan.profiles.map((p) => [p.name, p])) } : {}),
      trials: plan.trials,
      stateDir: opts.out,
      // The sandbox the run recorded, named, so never swapped for another (resolveSandbox).
      settings: { ...settings, sandbox: sandbox.kind },
      concurrency,
      failFast: opts.failFast,
      resume: { runId, force: opts.force === true, retryErrors: opts.retryErrors === true },
      // The model options the run started with (limits, gateway mode, cassettes); API keys come from the environment.
      ...(plan.models ? { models: plan.models as ModelRunOptions } : {}),
      ...graded,
    },
    opts,
  );
  exitWith(runOutcomeExit(outcome));
}
