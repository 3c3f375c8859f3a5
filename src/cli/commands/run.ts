import { loadAgentCatalog, onlyReferenceAgents } from '../../domain/agents/index.js';
import { shellWord } from '../../core/format/index.js';
import { loadRunInput, resolveRunAgents } from '../../features/suite/index.js';
import { checkPlanSize, defaultConcurrency, findRunDir, MAX_PLANNED_ATTEMPTS, readPlanFile } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import { selectTasks } from '../../domain/tasks/index.js';
import { withFlagNames } from '../option-flags.js';
import { startSandboxChoice } from '../sandbox-choice.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import type { GuardMode } from '../../core/types/index.js';
import { wholeNumber, writableStateDir } from '../args.js';
import type { ModelCliOptions } from '../model-options.js';
import { modelRunOptions } from '../model-run.js';
import { reporterOptions, type ReporterCliOptions } from '../report-options.js';
import { QUEUE_CONCURRENCY, runAndReportOn } from '../queue-run.js';
import { runOutcomeExit } from '../run-report.js';
import { ADAPTIVE_DEFAULT_RUNS, adaptiveRunOptions, type AdaptiveCliOptions } from '../adaptive-options.js';
import { shownPath, type CliIo } from '../io.js';
import { exitWith } from '../exit.js';

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
export async function runCommand(tasksetPath: string, opts: RunCommandOptions, io: CliIo): Promise<void> {
  // Profiles and a suite's agents come from the file, so it loads before the agent and model flags are checked.
  const input = loadRunInput(tasksetPath);
  const flagAgents = [...(opts.agent ?? []), ...(opts.model ?? [])];
  if (flagAgents.length === 0 && input.agents === undefined) {
    // The agent measured is the user's to name; oracle is the one reference agent worth running first (it proves the tasks), never an attack agent.
    const suite = input.kind === 'suite' ? ', or an `agents:` list to the suite' : '';
    const fix = `add --agent NAME, an agent \`crucible agents\` lists such as claude-code or openai:gpt-4.1-mini${suite}; to check the tasks first: crucible run ${shellWord(tasksetPath)} --agent oracle`;
    throw new InputError(`no agent given (fix: ${fix})`);
  }
  const builtin = !onlyReferenceAgents([...flagAgents, ...(input.agents ?? [])]);
  const { profiles } = loadAgentCatalog({ taskSet: input.profiles, agentsFile: opts.agents, builtin });
  const runs = opts.runs === undefined ? (opts.adaptive ? ADAPTIVE_DEFAULT_RUNS : undefined) : wholeNumber('--runs', opts.runs, 1, 1, MAX_PLANNED_ATTEMPTS);
  const { agents, trials, agentTrials } = resolveRunAgents(input, { agents: flagAgents, ...(runs === undefined ? {} : { runs }) });
  const models = modelRunOptions(opts, agents, profiles);
  // Checked before anything loads: a bad URL is one line naming the flag.
  const queueFlag = opts.queue === undefined ? undefined : (await import('../../features/distributed/index.js')).parseQueueUrl('--queue', opts.queue).url;
  if (opts.force && !opts.resume) throw new InputError('--force only applies with --resume (fix: add --resume <run-id>, or drop --force)');
  if (opts.retryErrors && !opts.resume) throw new InputError('--retry-errors only applies with --resume (fix: add --resume <run-id>, or drop --retry-errors)');
  const resumed = opts.resume === undefined ? undefined : await withFlagNames(() => findRunDir(opts.out, opts.resume as string));
  // A distributed run resumes on its queue, as `crucible resume` does: the one plan.json recorded unless --queue moves it.
  const queue = queueFlag ?? (resumed ? (await readPlanFile(resumed.runDir, resumed.runId)).queue : undefined);
  const adaptive = adaptiveRunOptions(opts, opts.maxCostTotal);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, queue === undefined ? defaultConcurrency() : QUEUE_CONCURRENCY);
  // The sandbox check starts bwrap; it runs while the task set loads.
  const sandboxChoice = startSandboxChoice(io, opts.sandbox, agents, 'grade', opts.out);
  const selection = { taskIds: opts.task, tags: opts.tag, categories: opts.category, difficulties: opts.difficulty };
  const tasks = withFlagNames(() => selectTasks(input.tasks, selection, tasksetPath));
  withFlagNames(() => checkPlanSize(tasks.length, agents.length, trials));
  writableStateDir('--out', opts.out, io.cwd);
  const resume = resumed ? { runId: resumed.runId, force: opts.force === true, retryErrors: opts.retryErrors === true } : undefined;

  const sandbox = await sandboxChoice();
  const taskSets = new Map(tasks.flatMap((t) => (input.taskSets.has(t.id) ? [[t.id, input.taskSets.get(t.id) as string] as const] : [])));

  const outcome = await runAndReportOn(
    io,
    queue,
    {
      taskSetFile: displayPath(input.file, io.cwd),
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
      // Looks batched as a local run's are, also on the queue (whose -j default is only jobs queued at once).
      ...(adaptive ? { adaptive: { ...adaptive, batch: opts.concurrency === undefined ? defaultConcurrency() : concurrency } } : {}),
    },
    { ...opts, reporters: reporterOptions(opts, input.reporters) },
  );
  exitWith(runOutcomeExit(outcome));
}

/** Relative to the working directory when under it, absolute otherwise (`../../x` reads badly in history). */
function displayPath(file: string, cwd: string): string {
  return shownPath({ cwd }, file);
}
