import { Command } from 'commander';
import { trustSpecs, withOptions } from '../options.js';
import type { CliIo } from '../io.js';

/** What every pack subcommand's exit codes mean. */
const PACK_EXIT = `
  Exit codes: 0 OK, 1 verification failed (a file's hash, the manifest, the archive digest or the
  signatures do not check out: the pack is not what it claims), 2 bad input (a malformed or hostile
  archive: unsafe paths, symlinks out, devices, duplicates, zip bombs, schema errors; bad arguments).`;

/** `crucible pack`: its options, arguments and help; the action is imported only when it runs. */
export function definePack(io: CliIo): Command {
  return new Command('pack')
    .description('Benchmark packs: one verifiable zip holding a task set and its repos (docs/packs.md).')
    .addCommand(
      new Command('create')
        .description('Pack a task set, its repos and the files it names into a normalized zip (same input, same bytes).')
        .argument('<taskset>', 'task-set YAML file')
        .requiredOption('-o, --out <file>', 'the pack to write, e.g. bench.crucible.zip')
        .addHelpText(
          'after',
          `\nRepos go under repos/ (a local git repo as its files at the task's commit), other files under files/,\nthe task set is rewritten to those paths as tasks.yaml. npm sources and remote git repos cannot be packed.\n${PACK_EXIT}`,
        )
        .action(async (taskset: string, opts) => (await import('./pack.js')).packCreateCommand(taskset, opts, io)),
    )
    .addCommand(
      withOptions(
        new Command('verify')
          .description('Check a pack without extracting it: paths, modes, sizes, hashes, the task set, and signatures under --trust.')
          .argument('<zip>', 'the pack'),
        trustSpecs('trust policy YAML (trusted_keys, required); the pack must carry enough trusted signatures'),
      )
        .addHelpText('after', PACK_EXIT)
        .action(async (zip: string, opts) => (await import('./pack.js')).packVerifyCommand(zip, opts, io)),
    )
    .addCommand(
      withOptions(
        new Command('import')
          .description('Verify a pack, then extract it into a new directory; prints the task set to run. Nothing is run from it.')
          .argument('<zip>', 'the pack')
          .argument('<dest>', 'a directory that does not exist yet'),
        trustSpecs('trust policy YAML; enforced before anything is written'),
      )
        .addHelpText('after', PACK_EXIT)
        .action(async (zip: string, dest: string, opts) => (await import('./pack.js')).packImportCommand(zip, dest, opts, io)),
    )
    .addCommand(
      new Command('sign')
        .description("Sign a verified pack's root digest with an Ed25519 key, into a detached <zip>.sig.json (signatures accumulate).")
        .argument('<zip>', 'the pack')
        .requiredOption('--key <file>', 'private key PEM from crucible keys generate')
        .option('-o, --out <file>', 'signature file (default <zip>.sig.json)')
        .addHelpText('after', PACK_EXIT)
        .action(async (zip: string, opts) => (await import('./pack.js')).packSignCommand(zip, opts, io)),
    )
    .addCommand(
      new Command('install')
        .description('Find NAME[@VERSION] in a local index, check its archive digest, verify (and trust), import; prints the task set to run.')
        .argument('<spec>', 'NAME@VERSION, or NAME for the highest version')
        .requiredOption('--index <file>', 'index YAML/JSON: packs: [{name, version, path, sha256, signatures}]')
        .option('--trust <file>', 'trust policy YAML; enforced before anything is written')
        .option('-o, --out <dir>', 'a new directory to import into (default ./NAME-VERSION)')
        .addHelpText(
          'after',
          `${PACK_EXIT}\n\nExample:\n  crucible run "$(crucible pack install examples@1.0.0 --index packs/index.yaml --trust trust.yaml)" --agent oracle`,
        )
        .action(async (spec: string, opts) => (await import('./pack.js')).packInstallCommand(spec, opts, io)),
    );
}
