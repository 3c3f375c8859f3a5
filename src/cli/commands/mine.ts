import { join, relative, resolve } from 'node:path';
import pc from 'picocolors';
import {
  mineRepository,
  modelInstructionWriter,
  templateInstructionWriter,
  type InstructionWriter,
  type MineEntry,
  type MineSummary,
} from '../../features/authoring/index.js';
import { isModelSpec } from '../../domain/agents/index.js';
import { modelRunOptions } from '../model-run.js';
import type { ModelCliOptions } from '../model-options.js';
import { InputError } from '../../core/errors.js';
import { resolveSandbox, sandboxTraits, type SandboxKind } from '../../infra/sandbox/index.js';
import { writableStateDir } from '../args.js';
import { EXIT, exitWith } from '../exit.js';
import { openSession } from '../../engine/index.js';
import { nextSteps, shellPath } from '../next-steps.js';
import { wholeNumberOption } from './whole-number-option.js';
import type { CliIo } from '../io.js';

export interface MineCommandOptions {
  dest: string;
  since?: string;
  until?: string;
  limit?: string;
  paths?: string[];
  testPaths?: string[];
  testCommand?: string;
  writer?: string;
  jobs?: string;
  runs?: string;
  json?: boolean;
  out: string;
  sandbox?: SandboxKind;
  /** For a model --writer: where it is reached, recorded, replayed and priced. */
  baseUrl?: ModelCliOptions['baseUrl'];
  record?: string;
  replay?: string;
  pricing?: string;
}

/**
 * `crucible mine [repo]`: tasks from the repository's history (the work is
 * src/features/authoring/mine.ts); this file reads the flags, shows progress on stderr and prints
 * the table of kept and dropped commits. Exit 0 at least one task kept, 1 none, 2 bad input, 130
 * interrupted (run the same command again to resume).
 */
export async function mineCommand(repo: string | undefined, opts: MineCommandOptions, io: CliIo): Promise<void> {
  writableStateDir('--out', opts.out, io.cwd);
  const limit = opts.limit === undefined ? undefined : wholeNumberOption('--limit', opts.limit, 50, 1, 100_000);
  const jobs = wholeNumberOption('--jobs', opts.jobs, 1, 1, 64);
  const runs = wholeNumberOption('--runs', opts.runs, 3, 1, 20);
  // Every commit's code is untrusted: no fallback to running it unconfined.
  if (opts.sandbox !== undefined && !sandboxTraits(opts.sandbox).filesystem)
    throw new InputError(
      `--sandbox ${opts.sandbox}: crucible mine runs the code of every commit it walks, so only in a sandbox (fix: use --sandbox bwrap or --sandbox docker)`,
    );
  // Read before any commit is judged: a template or a model that cannot be used fails now, not after an hour.
  const writer = chosenWriter(opts.writer, opts, io.cwd);
  const sandbox = (await resolveSandbox(opts.sandbox, { allowFallback: false, stateDir: opts.out })).kind;
  const session = openSession(io.signals);
  let summary: MineSummary;
  try {
    summary = await mineRepository(
      {
        repo: resolve(io.cwd, repo ?? '.'),
        dest: resolve(io.cwd, opts.dest),
        jobs,
        runs,
        ...(limit !== undefined ? { limit } : {}),
        ...(opts.since !== undefined ? { since: opts.since } : {}),
        ...(opts.until !== undefined ? { until: opts.until } : {}),
        ...(opts.paths?.length ? { paths: opts.paths } : {}),
        ...(opts.testPaths?.length ? { testPaths: opts.testPaths } : {}),
        ...(opts.testCommand !== undefined ? { testCommand: opts.testCommand } : {}),
        ...(writer !== undefined ? { writer } : {}),
      },
      { stateDir: opts.out, sandbox, signal: session.stop, onProgress: (line) => io.stderr.write(`${pc.dim(line)}\n`) },
    );
  } finally {
    session.close();
    await writer?.close();
  }
  if (opts.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else io.stdout.write(formatMineTable(summary.entries));
  const shown = (f: string): string => shellPath(relative(io.cwd, f) || f);
  if (session.interrupted || !summary.complete) {
    io.stderr.write(`${pc.yellow('interrupted')} the judged commits are kept: run the same command again to resume\n`);
    exitWith(EXIT.interrupted);
    return;
  }
  const summaryFile = shown(join(resolve(io.cwd, opts.dest), 'mine.json'));
  if (summary.tasksFile === undefined) {
    io.stderr.write(`no task kept from ${summary.entries.length} commits walked: ${summaryFile} says why each was dropped\n`);
    exitWith(EXIT.failed);
    return;
  }
  const tasks = shown(summary.tasksFile);
  if (!opts.json) {
    io.stdout.write(
      `\n${pc.green('wrote')} ${summary.kept} task${summary.kept === 1 ? '' : 's'} to ${tasks} (repos/ and oracle/ beside it); why each other commit was dropped: ${summaryFile}\n\n`,
    );
    io.stdout.write(
      nextSteps(
        [
          `# read the instructions in ${tasks}: ${writer !== undefined ? `written by --writer ${writer.spec}` : 'drafted'} from each commit's message and failing tests`,
          `crucible validate ${tasks}`,
          `crucible run ${tasks} --agent oracle --agent nop`,
        ],
        { tasks: summary.kept, repo: repo === undefined ? '.' : shellPath(repo) },
      ),
    );
  }
  exitWith(EXIT.ok);
}

/**
 * `template:FILE` or `provider:model`; the model flags (--base-url, --record, --replay, --pricing)
 * only with a model, checked as `crucible run` checks them (a key missing, a cassette directory).
 */
function chosenWriter(spec: string | undefined, opts: MineCommandOptions, cwd: string): InstructionWriter | undefined {
  const modelFlags: ModelCliOptions = {
    ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}),
    ...(opts.record !== undefined ? { record: resolve(cwd, opts.record) } : {}),
    ...(opts.replay !== undefined ? { replay: resolve(cwd, opts.replay) } : {}),
    ...(opts.pricing !== undefined ? { pricing: resolve(cwd, opts.pricing) } : {}),
  };
  if ((spec === undefined || spec.startsWith('template:')) && Object.keys(modelFlags).length > 0)
    throw new InputError(
      `--writer ${spec ?? '(none)'}: --base-url, --record, --replay and --pricing are for a model writer (fix: drop them, or use --writer <provider:model>)`,
    );
  if (spec === undefined) return undefined;
  const template = templateInstructionWriter(spec, cwd);
  if (template !== undefined) return template;
  if (!isModelSpec(spec))
    throw new InputError(
      `--writer ${spec}: expected template:FILE or <provider>:<model> (fix: e.g. --writer template:instruction.md or --writer openai:gpt-4.1-mini)`,
    );
  try {
    return modelInstructionWriter(spec, modelRunOptions(modelFlags, [spec]) ?? {});
  } catch (error) {
    // The checks are crucible run's, which name its --model flag: here the model is the writer's.
    if (error instanceof InputError && error.message.startsWith(`--model ${spec}`)) throw new InputError(error.message.replace('--model', '--writer'));
    throw error;
  }
}

/** One row per commit walked: kept ones by rank, then the dropped ones with the reason. */
export function formatMineTable(entries: readonly MineEntry[]): string {
  const rows = entries.map((e) => {
    const status = e.status === 'kept' ? pc.green(`kept #${e.rank ?? 0}`.padEnd(9)) : pc.yellow('dropped'.padEnd(9));
    const what = e.status === 'kept' ? `${e.failToPass?.length ?? 0} fail-to-pass, fix of ${e.fixLines ?? 0} lines: ${e.id ?? ''}` : (e.reason ?? '');
    return `${e.sha.slice(0, 7)}  ${status}  ${truncate(e.subject, 40).padEnd(40)}  ${what}`;
  });
  return `${['commit   verdict    subject                                   why', ...rows].join('\n')}\n`;
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}
