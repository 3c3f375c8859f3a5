import { Command, CommanderError, type OutputConfiguration } from 'commander';
import { EXIT, handleError, type ExitCode } from './exit.js';
import type { CliIo } from './io.js';
import { resolveStateDirOption } from './state-dir-option.js';
import { version } from '../core/version.js';
import { defineRun } from './commands/run.command.js';
import { defineQuickstart } from './commands/quickstart.command.js';
import { definePlan } from './commands/plan.command.js';
import { defineGrade } from './commands/grade.command.js';
import { defineCi } from './commands/ci.command.js';
import { defineValidate } from './commands/validate.command.js';
import { defineTests } from './commands/tests.command.js';
import { defineInit } from './commands/init.command.js';
import { defineMine } from './commands/mine.command.js';
import { defineTask } from './commands/task.command.js';
import { defineResume } from './commands/resume.command.js';
import { defineHistory } from './commands/history.command.js';
import { defineShow } from './commands/show.command.js';
import { defineExport } from './commands/export.command.js';
import { defineCompare } from './commands/compare.command.js';
import { defineBaseline } from './commands/baseline.command.js';
import { defineGate } from './commands/gate.command.js';
import { defineView } from './commands/view.command.js';
import { defineSchema } from './commands/schema.command.js';
import { defineImport } from './commands/import.command.js';
import { defineAgents } from './commands/agents.command.js';
import { defineAudit } from './commands/audit.command.js';
import { defineManifest } from './commands/manifest.command.js';
import { defineTrace } from './commands/trace.command.js';
import { definePack } from './commands/pack.command.js';
import { defineKeys } from './commands/keys.command.js';
import { defineDiagnostics } from './commands/diagnostics.command.js';
import { defineWorker } from './commands/worker.command.js';

/** The CLI as a value: its commander tree (for help and the docs test) and the call that runs it. */
export interface CrucibleProgram {
  readonly command: Command;
  /** Parses the user's arguments (no `node` and script path), runs the command and returns its exit code. */
  run(args: readonly string[]): Promise<ExitCode | number>;
}

/** A command of the CLI over io: its options, arguments and help, declared in its module under commands/. */
type CommandDefinition = (io: CliIo) => Command;

/** Every command, in the order `crucible --help` lists them. */
const COMMANDS: readonly CommandDefinition[] = [
  defineRun,
  defineQuickstart,
  definePlan,
  defineGrade,
  defineCi,
  defineValidate,
  defineTests,
  defineInit,
  defineMine,
  defineTask,
  defineResume,
  defineHistory,
  defineShow,
  defineExport,
  defineCompare,
  defineBaseline,
  defineGate,
  defineView,
  defineSchema,
  defineImport,
  defineAgents,
  defineAudit,
  defineManifest,
  defineTrace,
  definePack,
  defineKeys,
  defineDiagnostics,
  defineWorker,
];

/**
 * Assembles the CLI over `io` from the command modules (commands/*.command.ts: each declares its
 * options, arguments, help and action). Each command's action module is imported only when it
 * runs, so `crucible --help` and a `run` of the reference agents load none of the heavy modules
 * (the model SDK, the dashboard, the queue). Nothing here or in the commands reads `process`:
 * streams, environment, directory and signals are io's, and the exit code is returned, never set.
 */
export function createProgram(io: CliIo): CrucibleProgram {
  const program = new Command('crucible')
    .configureOutput(outputTo(io))
    .description('Measure how well AI coding agents work on real repositories, graded on evidence they cannot forge.')
    .version(version())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .hook('preAction', (_program, action) => resolveStateDirOption(action, io.cwd));
  for (const define of COMMANDS) program.addCommand(define(io));
  inheritSettings(program);
  return {
    command: program,
    async run(args) {
      try {
        await program.parseAsync([...args], { from: 'user' });
        return EXIT.ok;
      } catch (error) {
        // --help and --version end here with code 0; usage errors are bad input.
        if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.badInput;
        return handleError(error, io);
      }
    },
  };
}

/** Commander's output (help, usage errors, --version) goes to io's streams, wrapped at its width. */
function outputTo(io: CliIo): OutputConfiguration {
  return {
    writeOut: (text) => void io.stdout.write(text),
    writeErr: (text) => void io.stderr.write(text),
    getOutHelpWidth: () => io.stdout.columns ?? 80,
    getErrHelpWidth: () => io.stderr.columns ?? 80,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
}

/**
 * Subcommands made with `new Command()` and addCommand do not inherit their parent's settings:
 * without this a usage error in `pack create` would print to the real process and exit it (1)
 * instead of ending as bad input (2) through io.
 */
function inheritSettings(command: Command): void {
  for (const sub of command.commands) {
    sub.copyInheritedSettings(command);
    inheritSettings(sub);
  }
}
