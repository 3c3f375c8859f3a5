import { Command } from 'commander';
import type { CliIo } from '../io.js';

/** `crucible schema`: its options, arguments and help; the action is imported only when it runs. */
export function defineSchema(io: CliIo): Command {
  return new Command('schema')
    .description('Write the JSON Schema of the task-set format, or of another file Crucible reads (for editor completion and linting).')
    .argument(
      '[which]',
      'taskset (default), agents, suite, ci (crucible.ci.yaml), baseline, registry (registry.yaml), trust (pack --trust) or pack-index (pack --index)',
    )
    .option('-o, --out <file>', 'write to this file instead of stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  crucible schema --out taskset.schema.json\n  then start a task-set file with: # yaml-language-server: $schema=./taskset.schema.json\n  crucible schema agents --out agents.schema.json\n  crucible schema registry --out registry.schema.json',
    )
    .action(async (which: string | undefined, opts) => (await import('./schema.js')).schemaCommand(which, opts, io));
}
