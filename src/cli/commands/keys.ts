import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { generateKey } from '../../features/pack/index.js';
import type { CliIo } from '../io.js';

/** `crucible keys generate [-o DIR]`: an Ed25519 key pair; the private key is written mode 0600 and never printed. */
export function keysGenerateCommand(opts: { out: string }, io: CliIo): void {
  const key = generateKey();
  mkdirSync(opts.out, { recursive: true });
  const privateFile = join(opts.out, `${key.id}.key.pem`);
  const publicFile = join(opts.out, `${key.id}.pub.pem`);
  try {
    writeFileSync(privateFile, key.privatePem, { mode: 0o600, flag: 'wx' });
    writeFileSync(publicFile, key.publicPem, { mode: 0o644, flag: 'wx' });
  } catch (error) {
    throw new InputError(
      `-o ${opts.out}: cannot write the key files (${(error as NodeJS.ErrnoException).code ?? 'error'}) (fix: pick a directory you can write)`,
    );
  }
  io.stderr.write(`private key: ${privateFile} (keep it secret; mode 0600)\npublic key:  ${publicFile}\n`);
  const indented = key.publicPem
    .trimEnd()
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n');
  io.stdout.write(`key id ${key.id}\n# trust policy entry:\ntrusted_keys:\n  - id: ${key.id}\n    public_key: |\n${indented}\nrequired: 1\n`);
}
