import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { BLOB_TTL_SECONDS, blobKey } from './keys.js';

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const SHA256 = /^[0-9a-f]{64}$/;

export function isSha256(value: unknown): value is string {
  return typeof value === 'string' && SHA256.test(value);
}

/**
 * Stores blobs by their SHA-256; a blob already there only has its lifetime renewed, so shipping
 * the same task set twice costs one round trip per file.
 */
export async function putBlobs(redis: Redis, blobs: ReadonlyMap<string, Buffer>): Promise<void> {
  const shas = [...blobs.keys()];
  for (let i = 0; i < shas.length; i += 256) {
    const batch = shas.slice(i, i + 256);
    const exists = await redis.pipeline(batch.map((sha) => ['expire', blobKey(sha), String(BLOB_TTL_SECONDS)])).exec();
    const missing = batch.filter((_, j) => exists?.[j]?.[1] !== 1);
    if (missing.length > 0) await redis.pipeline(missing.map((sha) => ['set', blobKey(sha), blobs.get(sha) as Buffer, 'EX', String(BLOB_TTL_SECONDS)])).exec();
  }
}

export async function putBlob(redis: Redis, bytes: Buffer): Promise<string> {
  const sha = sha256Hex(bytes);
  await putBlobs(redis, new Map([[sha, bytes]]));
  return sha;
}

/** A blob whose bytes hash to `sha`; throws when it is missing or its content does not match. */
export async function getBlob(redis: Redis, sha: string): Promise<Buffer> {
  if (!isSha256(sha)) throw new Error(`not a SHA-256: ${JSON.stringify(sha).slice(0, 80)}`);
  const bytes = await redis.getBuffer(blobKey(sha));
  if (bytes === null) throw new Error(`blob ${sha.slice(0, 12)} is missing from the queue's store (expired or never written)`);
  const actual = sha256Hex(bytes);
  if (actual !== sha) throw new Error(`blob ${sha.slice(0, 12)} does not match its hash (got ${actual.slice(0, 12)})`);
  return bytes;
}
