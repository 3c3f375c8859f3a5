import { Command } from 'commander';
import type { CliIo } from '../io.js';

/** `crucible keys`: its options, arguments and help; the action is imported only when it runs. */
export function defineKeys(io: CliIo): Command {
  return new Command('keys').description('Signing keys for benchmark packs (Ed25519).').addCommand(
    new Command('generate')
      .description('Write a new Ed25519 key pair: <id>.key.pem (mode 0600) and <id>.pub.pem; prints the id and a trust-policy entry.')
      .option('-o, --out <dir>', 'directory for the key files', '.')
      .addHelpText('after', '\nExit codes: 0 written, 2 the directory cannot be written.')
      .action(async (opts) => (await import('./keys.js')).keysGenerateCommand(opts, io)),
  );
}
