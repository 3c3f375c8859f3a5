/**
 * Benchmark packs (docs/packs.md): one zip holding a task set and its repos, verified before
 * anything is extracted. This file is the contract other modules (audit, distributed) code against.
 */
import { join } from 'node:path';
import { extractPack } from './extract.js';
import type { PackLimits } from './limits.js';
import { findInIndex, loadIndex } from './registry-index.js';
import { inspectPack } from './verify.js';

export { createPack, PACK_TASKSET, type CreatedPack } from './create.js';
export { PackVerificationError } from './errors.js';
export { generateKey, keyId, type GeneratedKey } from './keys.js';
export { DEFAULT_PACK_LIMITS, type PackLimits } from './limits.js';
export { loadIndex, findInIndex, type IndexEntry } from './registry-index.js';
export { addSignature, readSignatureFile, signaturePathFor, type PackSignature } from './signatures.js';
export { loadTrustPolicy } from './trust.js';
export { trustJsonSchema, packIndexJsonSchema, TRUST_SCHEMA_ID, PACK_INDEX_SCHEMA_ID } from './json-schema.js';

/** Who must have signed a pack for it to be trusted. */
export interface TrustPolicy {
  /** The key ids (of public keys) whose signatures count. */
  trustedKeys: string[];
  /** How many distinct trusted signatures a pack needs. */
  required: number;
  /**
   * Key id → PEM public key, as a trust policy file lists them. A trusted id without one here is
   * checked with the key a signature carries, accepted only when that key's id is the trusted id.
   */
  publicKeys?: Record<string, string>;
}

export interface PackVerifyOptions {
  /** Signatures, trusted keys and how many are required; without it signatures are not required. */
  trust?: TrustPolicy;
  /** Signature files to read; default `<archive>.sig.json` when it exists. */
  signatureFiles?: string[];
  /** The archive's expected SHA-256 (an index entry's); a different file is rejected. */
  archiveDigest?: string;
  /** Tighter (or looser) limits than DEFAULT_PACK_LIMITS. */
  limits?: Partial<PackLimits>;
}

/** A pack that passed verification: its identity and where its task set lies once imported. */
export interface VerifiedPack {
  archive: string;
  /** SHA-256 (hex) over the pack's file manifest: what signatures sign. */
  rootDigest: string;
  /** SHA-256 (hex) of the archive's bytes. */
  archiveDigest: string;
  /** The task set's path inside the pack, e.g. `tasks.yaml`. */
  taskset: string;
  files: number;
  /** Trusted key ids whose signatures verified (empty when no trust policy was given). */
  signedBy: string[];
}

export interface ImportedPack extends VerifiedPack {
  /** The new directory the pack was extracted into. */
  dir: string;
  /** Absolute path of the extracted task set, ready for `crucible run`. */
  tasksetPath: string;
}

/** Reads and checks a pack without extracting it; throws InputError (exit 2) or PackVerificationError (exit 1) naming the first problem. */
export async function verifyPack(archive: string, options: PackVerifyOptions = {}): Promise<VerifiedPack> {
  const inspected = await inspectPack(archive, options);
  inspected.archive.close();
  return summary(archive, inspected);
}

/** Verifies, then extracts only verified regular files and safe relative symlinks into `dest` (which must not exist). */
export async function importPack(archive: string, dest: string, options: PackVerifyOptions = {}): Promise<ImportedPack> {
  const inspected = await inspectPack(archive, options);
  try {
    const dir = await extractPack(inspected, dest);
    return { ...summary(archive, inspected), dir, tasksetPath: join(dir, ...inspected.manifest.taskset.split('/')) };
  } finally {
    inspected.archive.close();
  }
}

/** Finds NAME[@VERSION] in a local index, checks the archive's digest, verifies (with trust) and imports. */
export async function installPack(
  spec: string,
  indexFile: string,
  options: { trust?: TrustPolicy; dest?: string; limits?: Partial<PackLimits> } = {},
): Promise<ImportedPack & { name: string; version: string }> {
  const entry = findInIndex(loadIndex(indexFile), spec, indexFile);
  const dest = options.dest ?? `${entry.name}-${entry.version}`;
  const imported = await importPack(entry.archive, dest, {
    ...(options.trust ? { trust: options.trust } : {}),
    signatureFiles: entry.signatureFiles,
    archiveDigest: entry.sha256,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return { ...imported, name: entry.name, version: entry.version };
}

function summary(archive: string, inspected: Awaited<ReturnType<typeof inspectPack>>): VerifiedPack {
  return {
    archive,
    rootDigest: inspected.rootDigest,
    archiveDigest: inspected.archive.archiveDigest,
    taskset: inspected.manifest.taskset,
    files: inspected.manifest.files.length,
    signedBy: inspected.signedBy,
  };
}
