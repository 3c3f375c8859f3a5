import { existsSync, readFileSync } from 'node:fs';
import { InputError } from '../../core/errors.js';
import {
  addSignature,
  createPack,
  importPack,
  installPack,
  loadTrustPolicy,
  signaturePathFor,
  verifyPack,
  type PackVerifyOptions,
  type TrustPolicy,
  type VerifiedPack,
} from '../../features/pack/index.js';
import type { CliIo } from '../io.js';

interface TrustOpts {
  trust?: string;
  signatures?: string[];
}

function verifyOptions(opts: TrustOpts): PackVerifyOptions {
  return {
    ...(opts.trust !== undefined ? { trust: loadTrustPolicy(opts.trust) } : {}),
    ...(opts.signatures !== undefined ? { signatureFiles: opts.signatures } : {}),
  };
}

function describe(pack: VerifiedPack): string {
  const signed = pack.signedBy.length > 0 ? `, signed by ${pack.signedBy.join(', ')}` : '';
  return `${pack.files} files, root digest ${pack.rootDigest}, archive sha256 ${pack.archiveDigest}${signed}`;
}

/** `crucible pack create <taskset> -o FILE`. */
export async function packCreateCommand(taskset: string, opts: { out: string }, io: CliIo): Promise<void> {
  if (existsSync(opts.out)) throw new InputError(`-o ${opts.out}: already exists (fix: remove it or pick another name)`);
  const created = await createPack(taskset, opts.out);
  io.stderr.write(`packed ${created.files} files into ${opts.out}\n`);
  io.stdout.write(`root digest ${created.rootDigest}\n`);
}

/** `crucible pack verify <zip> [--trust FILE]`: reads, never extracts. */
export async function packVerifyCommand(archive: string, opts: TrustOpts, io: CliIo): Promise<void> {
  const verified = await verifyPack(archive, verifyOptions(opts));
  io.stdout.write(`OK ${archive}: ${describe(verified)}\n`);
}

/** `crucible pack import <zip> <dest>`: prints the imported task set's path on stdout. */
export async function packImportCommand(archive: string, dest: string, opts: TrustOpts, io: CliIo): Promise<void> {
  const imported = await importPack(archive, dest, verifyOptions(opts));
  io.stderr.write(`imported ${archive} into ${imported.dir}: ${describe(imported)}\nrun it: crucible run ${imported.tasksetPath} --agent oracle\n`);
  io.stdout.write(`${imported.tasksetPath}\n`);
}

/** `crucible pack sign <zip> --key PRIVATE.pem`: verifies the pack, then signs its root digest. */
export async function packSignCommand(archive: string, opts: { key: string; out?: string }, io: CliIo): Promise<void> {
  let pem: string;
  try {
    pem = readFileSync(opts.key, 'utf8');
  } catch (error) {
    throw new InputError(
      `--key ${opts.key}: cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'}) (fix: pass the .key.pem crucible keys generate wrote)`,
    );
  }
  // Only a pack that verifies is signed: a signature vouches for what verify checks.
  const verified = await verifyPack(archive);
  const sigFile = opts.out ?? signaturePathFor(archive);
  const signature = addSignature(sigFile, verified.rootDigest, pem, opts.key);
  io.stdout.write(`signed ${archive} (root digest ${verified.rootDigest}) with key ${signature.key_id} into ${sigFile}\n`);
}

/** `crucible pack install NAME[@VERSION] --index FILE [--trust FILE] [-o DIR]`. */
export async function packInstallCommand(spec: string, opts: { index: string; trust?: string; out?: string }, io: CliIo): Promise<void> {
  const trust: TrustPolicy | undefined = opts.trust !== undefined ? loadTrustPolicy(opts.trust) : undefined;
  const installed = await installPack(spec, opts.index, { ...(trust ? { trust } : {}), ...(opts.out !== undefined ? { dest: opts.out } : {}) });
  io.stderr.write(
    `installed ${installed.name}@${installed.version} into ${installed.dir}: ${describe(installed)}\nrun it: crucible run ${installed.tasksetPath} --agent oracle\n`,
  );
  io.stdout.write(`${installed.tasksetPath}\n`);
}
