import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { schemaError } from '../../core/input/index.js';
import { InputError } from '../../core/errors.js';
import { keyId, parsePrivateKey, parsePublicKey, signDigest } from './keys.js';

/** A detached signature file, `<pack>.sig.json`: any number of signatures over one root digest. */
const signatureSchema = z.strictObject({
  key_id: z.string().regex(/^[0-9a-f]{32}$/, 'expected 32 lowercase hex digits'),
  algorithm: z.literal('ed25519'),
  public_key: z.string().min(1),
  root_digest: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits'),
  signature: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64'),
});

export const signatureFileSchema = z.strictObject({
  format: z.literal('crucible-pack-signatures'),
  version: z.literal(1),
  signatures: z.array(signatureSchema),
});

export type PackSignature = z.output<typeof signatureSchema>;
export type SignatureFile = z.output<typeof signatureFileSchema>;

export function signaturePathFor(archive: string): string {
  return `${archive}.sig.json`;
}

export function readSignatureFile(file: string): SignatureFile {
  let raw: unknown;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    raw = JSON.parse(text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: ${code ? `cannot read (${code})` : 'not valid JSON'} (fix: pass the .sig.json that crucible pack sign wrote)`);
  }
  const parsed = signatureFileSchema.safeParse(raw);
  if (!parsed.success)
    throw schemaError(file, text, signatureFileSchema, parsed.error.issues, {
      reference: 'docs/packs.md#keys-signatures-and-trust; pass the .sig.json that crucible pack sign wrote',
    });
  return parsed.data;
}

/**
 * Adds (or replaces) this key's signature over `rootDigest` in `sigFile`. Signatures over another
 * digest are dropped: they belong to an older pack and could only confuse a reader.
 */
export function addSignature(sigFile: string, rootDigest: string, privatePem: string, keyFile: string): PackSignature {
  const privateKey = parsePrivateKey(privatePem, keyFile);
  const publicKey = parsePublicKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), keyFile);
  const id = keyId(publicKey);
  const signature: PackSignature = {
    key_id: id,
    algorithm: 'ed25519',
    public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    root_digest: rootDigest,
    signature: signDigest(rootDigest, privateKey),
  };
  const existing = existsSync(sigFile) ? readSignatureFile(sigFile).signatures : [];
  const kept = existing.filter((s) => s.key_id !== id && s.root_digest === rootDigest);
  const file: SignatureFile = {
    format: 'crucible-pack-signatures',
    version: 1,
    signatures: [...kept, signature].sort((a, b) => a.key_id.localeCompare(b.key_id)),
  };
  writeFileSync(sigFile, `${JSON.stringify(file, null, 2)}\n`);
  return signature;
}
