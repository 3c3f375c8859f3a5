import { defaultConcurrency } from '../../engine/index.js';
import { gradeRunOptions } from '../../features/grade/index.js';
import { loadRunInput } from '../../features/suite/index.js';
import { resolveSandbox, type SandboxKind } from '../../infra/sandbox/index.js';
import { wholeNumber, writableStateDir } from '../args.js';
import pc from 'picocolors';
import { reporterOptions, type ReporterCliOptions } from '../report-options.js';
import { runAndReport, runOutcomeExit } from '../run-report.js';
import { exitWith } from '../exit.js';
import type { CliIo } from '../io.js';

export interface GradeCommandOptions extends ReporterCliOptions {
  predictions: string;
  modelName?: string;
  skipUnknown?: boolean;
  concurrency?: string;
  out: string;
  sandbox?: SandboxKind;
  keepWorkspace?: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** `crucible grade <taskset> --predictions P`: patches made elsewhere, graded as Crucible's own attempts. */
export async function gradeCommand(tasksetPath: string, opts: GradeCommandOptions, io: CliIo): Promise<void> {
  const input = loadRunInput(tasksetPath);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  writableStateDir('--out', opts.out, io.cwd);
  // Read before the sandbox check, so bad predictions are the one line the user sees.
  const graded = gradeRunOptions({
    input,
    predictions: opts.predictions,
    modelName: opts.modelName,
    skipUnknown: opts.skipUnknown,
    stateDir: opts.out,
    sandbox: 'bwrap',
    concurrency,
    keepWorkspace: opts.keepWorkspace,
  });
  // The patches are untrusted code: they get the sandbox a model agent gets, never the local fallback
  // (whatever the model is called: one named `oracle` is still somebody else's patch).
  const chosen = await resolveSandbox(opts.sandbox, { allowFallback: false });
  if (chosen.warning) io.stderr.write(`${pc.yellow('warning')} ${chosen.warning}\n`);
  const sandbox = chosen.kind;
  const options = { ...graded.options, settings: { ...graded.options.settings, sandbox } };
  const skipped = graded.skipped;
  const log = opts.json ? io.stderr : io.stdout;
  for (const p of skipped) log.write(`skipped ${p.where}: ${p.taskId} is not a task of ${options.taskSetFile}\n`);
  exitWith(runOutcomeExit(await runAndReport(io, options, { ...opts, reporters: reporterOptions(opts, input.reporters) })));
}
