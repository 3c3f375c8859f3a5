/**
 * What a pack may hold. Verification reads the zip's central directory before any file data, so
 * these bound the work and memory a hostile archive can cost before it is rejected.
 */
export interface PackLimits {
  /** Entries in the archive (files and symlinks, plus pack.json). */
  maxEntries: number;
  /** Sum of the uncompressed sizes of every entry. */
  maxTotalBytes: number;
  /** Uncompressed size of one entry. */
  maxEntryBytes: number;
  /** Uncompressed ÷ compressed size of one entry, applied to entries above `ratioFloorBytes`. */
  maxRatio: number;
  /** Entries smaller than this are not ratio-checked: a small file of one repeated byte is not a bomb. */
  ratioFloorBytes: number;
  /** The archive file itself. */
  maxArchiveBytes: number;
}

export const DEFAULT_PACK_LIMITS: Readonly<PackLimits> = {
  maxEntries: 100_000,
  maxTotalBytes: 2 * 1024 ** 3,
  maxEntryBytes: 512 * 1024 ** 2,
  maxRatio: 100,
  ratioFloorBytes: 64 * 1024,
  maxArchiveBytes: 2 * 1024 ** 3,
};

/** pack.json and a symlink target are read into memory whole; they are small by nature. */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;
export const MAX_SYMLINK_TARGET_BYTES = 4096;
export const MAX_TASKSET_IN_PACK_BYTES = 10 * 1024 * 1024;
