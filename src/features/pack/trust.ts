import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { schemaError } from '../../core/input/index.js';
import { InputError } from '../../core/errors.js';
import { keyId, parsePublicKey, verifyDigest } from './keys.js';
import { PackVerificationError } from './errors.js';
import type { PackSignature } from './signatures.js';
import type { TrustPolicy } from './index.js';

/** The trust policy file: which public keys count and how many of them must have signed. */
export const trustFileSchema = z.strictObject({
  $schema: z.string().optional().describe('The JSON Schema this file follows (for editors); not read.'),
  trusted_keys: z
    .array(
      z.strictObject({
        id: z.string().regex(/^[0-9a-f]{32}$/, 'expected the 32-hex-digit key id crucible keys generate printed'),
        public_key: z.string().min(1).describe('The PEM public key (the .pub.pem file).'),
        name: z.string().optional().describe('Who holds the key, for readers.'),
      }),
    )
    .min(1, 'list at least one trusted key'),
  required: z.number().int().positive().default(1).describe('How many distinct trusted keys must have signed a pack.'),
});

/** Reads and checks a trust policy YAML; every problem names the file, the field and the fix. */
export function loadTrustPolicy(file: string): TrustPolicy & { publicKeys: Record<string, string> } {
  let raw: unknown;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    raw = parse(text, { uniqueKeys: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      `${file}: ${code ? `cannot read (${code})` : `invalid YAML (${(error as Error).message.split('\n')[0]})`} (fix: check the trust policy file)`,
    );
  }
  const parsed = trustFileSchema.safeParse(raw);
  if (!parsed.success)
    throw schemaError(file, text, trustFileSchema, parsed.error.issues, {
      reference: 'docs/packs.md#keys-signatures-and-trust (a trust policy is trusted_keys: [{id, public_key, name?}] and required: N)',
    });
  const publicKeys: Record<string, string> = {};
  parsed.data.trusted_keys.forEach((k, i) => {
    const key = parsePublicKey(k.public_key, `${file}: trusted_keys[${i}].public_key`);
    if (keyId(key) !== k.id)
      throw new InputError(
        `${file}: trusted_keys[${i}].id: ${k.id} is not this public key's id, ${keyId(key)} (fix: copy the id crucible keys generate printed for it)`,
      );
    publicKeys[k.id] = k.public_key;
  });
  const ids = Object.keys(publicKeys);
  if (parsed.data.required > ids.length) {
    throw new InputError(
      `${file}: required: ${parsed.data.required} signatures, but only ${ids.length} trusted keys are listed (fix: lower required or add keys)`,
    );
  }
  return { trustedKeys: ids, required: parsed.data.required, publicKeys };
}

/**
 * Counts the distinct trusted keys whose signature over `rootDigest` verifies, and throws a
 * PackVerificationError when fewer than the policy requires. A trusted id's key comes from the
 * policy when it lists one; otherwise from the signature, accepted only when its id matches.
 */
export function enforceTrust(archive: string, rootDigest: string, signatures: readonly PackSignature[], policy: TrustPolicy): string[] {
  const trusted = new Set(policy.trustedKeys);
  const good = new Set<string>();
  let altered = 0;
  let untrusted = 0;
  for (const s of signatures) {
    if (!trusted.has(s.key_id)) {
      untrusted++;
      continue;
    }
    const pem = policy.publicKeys?.[s.key_id] ?? s.public_key;
    let key;
    try {
      key = parsePublicKey(pem, 'signature');
    } catch {
      continue;
    }
    if (keyId(key) !== s.key_id) continue;
    if (s.root_digest !== rootDigest || !verifyDigest(rootDigest, s.signature, key)) {
      altered++;
      continue;
    }
    good.add(s.key_id);
  }
  if (good.size < policy.required) {
    const why = [
      altered > 0 ? `${altered} trusted signature(s) do not match this pack (altered after signing?)` : '',
      untrusted > 0 ? `${untrusted} signature(s) by untrusted keys` : '',
      signatures.length === 0 ? 'no signatures found' : '',
    ]
      .filter(Boolean)
      .join('; ');
    throw new PackVerificationError(
      `${archive}: ${good.size} valid trusted signature(s), the trust policy requires ${policy.required}${why ? ` (${why})` : ''}`,
    );
  }
  return [...good].sort();
}
