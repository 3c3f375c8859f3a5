import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { InputError } from '../../core/errors.js';

/**
 * Ed25519 keys for signing packs. A key id is the first 32 hex digits (128 bits) of the SHA-256 of
 * the public key's DER (SPKI) encoding: short enough to read, long enough that no one can make
 * another key with the same id.
 */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 32);
}

export interface GeneratedKey {
  id: string;
  privatePem: string;
  publicPem: string;
}

export function generateKey(): GeneratedKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    id: keyId(publicKey),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Parses a PEM Ed25519 public key; anything else is an InputError naming `where`. */
export function parsePublicKey(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new InputError(`${where}: not a PEM public key (fix: paste the .pub.pem that crucible keys generate wrote)`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new InputError(`${where}: a ${key.asymmetricKeyType ?? 'unknown'} key, expected Ed25519 (fix: use crucible keys generate)`);
  return key;
}

export function parsePrivateKey(pem: string, where: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new InputError(`${where}: not a PEM private key (fix: pass the .key.pem that crucible keys generate wrote)`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new InputError(`${where}: a ${key.asymmetricKeyType ?? 'unknown'} key, expected Ed25519 (fix: use crucible keys generate)`);
  return key;
}

/** What is signed: a fixed domain string and the root digest, so a signature means nothing elsewhere. */
function signedMessage(rootDigest: string): Buffer {
  return Buffer.from(`crucible-pack-signature-v1\n${rootDigest}\n`, 'utf8');
}

export function signDigest(rootDigest: string, privateKey: KeyObject): string {
  return sign(null, signedMessage(rootDigest), privateKey).toString('base64');
}

export function verifyDigest(rootDigest: string, signature: string, publicKey: KeyObject): boolean {
  try {
    return verify(null, signedMessage(rootDigest), publicKey, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
