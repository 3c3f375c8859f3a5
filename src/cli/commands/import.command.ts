import { Command, Option } from 'commander';
import { registryHelp } from '../dataset-argument.js';
import type { CliIo } from '../io.js';

/** `crucible import swe-bench|harbor`: its options, arguments and help; the actions are imported only when they run. */
export function defineImport(io: CliIo): Command {
  const command = new Command('import').description('Turn a published benchmark format into a Crucible task set: swe-bench, harbor.').addHelpText(
    'after',
    `
  Examples:
    crucible import swe-bench swe-bench-verified.jsonl --ids psf__requests-2317 -o swe
    crucible validate swe/tasks.yaml --sandbox docker
    examples/swe-bench/make-repo.sh /tmp/mirrors   # the bundled sample, offline:
    crucible import swe-bench examples/swe-bench/instances.jsonl --repos /tmp/mirrors --environment none -o sample
    crucible validate sample/tasks.yaml
    crucible import harbor examples/harbor/hello-file -o imported-harbor
    crucible validate imported-harbor/tasks.yaml --sandbox docker`,
  );
  command
    .command('swe-bench')
    .description(
      'One task per SWE-bench instance (JSON Lines or a JSON array): problem statement, gold patch as oracle, test patch applied only at evaluation.',
    )
    .argument('<instances>', 'instances file: .jsonl (one instance per line) or .json (an array)')
    .requiredOption('-o, --out <dir>', 'directory to write the task set into (tasks.yaml, instructions/, oracle/)')
    .option('--ids <list>', 'only these instance ids, comma-separated')
    .option('--repos <dir>', 'local git mirrors named <owner>__<name> (default: clone https://github.com/<repo>.git)')
    .addOption(
      new Option('--environment <kind>', "image: SWE-bench's published instance image (pull: missing); none: the host toolchain (bwrap, local)")
        .choices(['image', 'none'])
        .default('image'),
    )
    .option('--dockerfile <file>', 'run every task in an image built from this Dockerfile instead (copied to <out>/env/)')
    .option('--strict', 'refuse an instance with a test id that can never match (absolute path, cut-off parameters, duplicate) instead of leaving the id out')
    .option('--force', 'write into an output directory that is not empty')
    .action(async (file: string, opts) => (await import('./import.js')).importSweBenchCommand(file, opts, io));
  command
    .command('harbor')
    .description(
      "One task per Harbor task directory (task.toml, instruction.md, environment/, solution/solve.sh, tests/test.sh) or Terminal-Bench's task.yaml layout: the oracle as a script, the tests as a reward verifier.",
    )
    .argument('<task-dir...>', 'task directories, or one dataset NAME@VERSION (docs/datasets.md)')
    .requiredOption('-o, --out <dir>', 'directory to write the task set into (tasks.yaml and one directory per task)')
    .option('--force', 'write into an output directory that is not empty')
    .option('--registry <file|url>', registryHelp)
    .option('--state-dir <dir>', "with a dataset name: Crucible's state directory, where the dataset is kept once imported", '.crucible')
    .action(async (dirs: string[], opts) => (await import('./import.js')).importHarborCommand(dirs, opts, io));

  return command;
}
