/**
 * Benchmark packs (docs/packs.md): one zip holding a task set and its repos, verified before
 * anything is extracted. This file is the contract other modules (audit, distributed) code against;
 * the pack helper implements it.
 */

/** Who must have signed a pack for it to be trusted. */
export interface TrustPolicy {
  /** The key ids (of public keys) whose signatures count. */
  trustedKeys: string[];
  /** How many distinct trusted signatures a pack needs. */
  required: number;
}

export interface PackVerifyOptions {
  /** Signatures, trusted keys and how many are required; without it signatures are not required. */
  trust?: TrustPolicy;
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
}

export interface ImportedPack extends VerifiedPack {
  /** The new directory the pack was extracted into. */
  dir: string;
  /** Absolute path of the extracted task set, ready for `crucible run`. */
  tasksetPath: string;
}

/** Reads and checks a pack without extracting it; throws InputError naming the first problem. */
export async function verifyPack(archive: string, options: PackVerifyOptions = {}): Promise<VerifiedPack> {
  void archive;
  void options;
  throw new Error('verifyPack: not implemented yet');
}

/** Verifies, then extracts only verified regular files and safe relative symlinks into `dest` (which must not exist). */
export async function importPack(archive: string, dest: string, options: PackVerifyOptions = {}): Promise<ImportedPack> {
  void archive;
  void dest;
  void options;
  throw new Error('importPack: not implemented yet');
}
