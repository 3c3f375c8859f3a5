import { existsSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Less free space than this on the state directory's file system is a full disk. Not zero: by the
 * time the harness looks, the writer that failed may have removed its temporary file, and git its
 * half-written object.
 */
export const FULL_DISK_MARGIN_BYTES = 1024 * 1024;

/**
 * Whether the file system holding `path` (the state directory, or the run directory in it) is in
 * fact full, by statfs: free blocks for this user (root may use the reserved ones) below
 * FULL_DISK_MARGIN_BYTES, or no free inodes. This is the only evidence of a full disk that an
 * agent cannot forge: an error message can quote any file name the agent chose ("No space left on
 * device.txt"), an errno can come from something else than the disk (inotify's watch limit is
 * ENOSPC too). False when statfs cannot answer: no evidence, no full disk.
 */
export function fileSystemFull(path: string): boolean {
  let at = resolve(path);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  try {
    const fs = statfsSync(at, { bigint: true });
    const blocks = process.getuid?.() === 0 ? fs.bfree : fs.bavail;
    // A file system that counts no inodes at all (files 0: btrfs, some FUSE) never runs out of them.
    const noInodes = fs.files > 0n && fs.ffree === 0n;
    return blocks * fs.bsize < BigInt(FULL_DISK_MARGIN_BYTES) || noInodes;
  } catch {
    return false;
  }
}
