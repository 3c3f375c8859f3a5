#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander';
import { handleError } from './exit.js';
import { version } from './version.js';

/** Repeatable options (`--agent a --agent b`) collect into an array. */
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

const program = new Command('crucible')
  .description('Measure how well AI coding agents work on real repositories, graded on evidence they cannot forge.')
  .version(version())
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

program
  .command('run')
  .description('Run agents on a task set and grade every attempt on test evidence.')
  .argument('<taskset>', 'task-set YAML file, e.g. examples/tasks.yaml')
  .option('-a, --agent <spec>', 'agent to run (repeatable): oracle, nop', collect)
  .option('-t, --task <id>', 'only this task (repeatable)', collect)
  .option('-o, --out <dir>', "Crucible's state directory (runs, caches, history)", '.crucible')
  .addOption(new Option('--sandbox <kind>', 'where agents and tests run (default: bwrap on Linux)').choices(['bwrap', 'local']))
  .option('--keep-workspace', 'keep each attempt\'s workspace after grading (for debugging)')
  .option('--json', 'print the run summary as JSON on stdout (progress goes to stderr)')
  .addHelpText('after', '\nExit codes: 0 every attempt passed, 1 some attempt failed or errored, 2 bad input.\n\nExample:\n  crucible run examples/tasks.yaml --agent oracle --agent nop')
  .action(async (taskset: string, opts) => (await import('./commands/run.js')).runCommand(taskset, opts));

program
  .command('schema')
  .description('Write the JSON Schema of the task-set format (for editor completion).')
  .option('-o, --out <file>', 'write to this file instead of stdout')
  .action(async (opts) => (await import('./commands/schema.js')).schemaCommand(opts));

async function main(): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors are bad input.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    process.exitCode = handleError(error);
  }
}

await main();
