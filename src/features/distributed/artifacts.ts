import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Redis } from 'ioredis';
import { ATTEMPT_SCRATCH_DIRS } from '../../engine/index.js';
import { ATTEMPT_FILES, attemptDir, attemptsDir } from '../../domain/run-dir/index.js';
import type { AttemptResult } from '../../core/types/index.js';
import { getBlob, isSha256, putBlobs, sha256Hex } from './blobs.js';
import { safePath } from './tree.js';

/** One file of an attempt directory as shipped back: path relative to the attempt dir, and its hash. */
export interface ArtifactRef {
  path: string;
  sha256: string;
  size: number;
}

/**
 * Every regular file an attempt directory holds (attempt.json, diff.patch, the JUnit copies,
 * trajectory, commands.jsonl and whatever else the engine writes there), except the scratch trees,
 * stored as blobs. Symlinks and special files are not evidence the engine writes: left out.
 */
export async function uploadAttemptDir(redis: Redis, attemptDir: string): Promise<ArtifactRef[]> {
  const scratch = new Set(ATTEMPT_SCRATCH_DIRS);
  const refs: ArtifactRef[] = [];
  const blobs = new Map<string, Buffer>();
  const walk = async (dir: string, top: boolean): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (top && scratch.has(entry.name)) continue;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) await walk(abs, false);
      else if (entry.isFile()) {
        const bytes = await readFile(abs);
        const sha = sha256Hex(bytes);
        blobs.set(sha, bytes);
        refs.push({ path: relative(attemptDir, abs).split(sep).join('/'), sha256: sha, size: bytes.length });
      }
    }
  };
  await walk(attemptDir, true);
  if (!refs.some((r) => r.path === ATTEMPT_FILES.record)) throw new Error(`the attempt left no attempt.json in ${attemptDir}`);
  await putBlobs(redis, blobs);
  return refs;
}

/**
 * The coordinator's side: each artifact fetched and checked against its hash, written into a
 * staging directory and renamed over `attempts/<attemptId>` only when all are in, so a half
 * transfer never looks like an attempt. attempt.json must belong to the attempt asked for.
 */
export async function downloadAttemptDir(redis: Redis, runDir: string, expect: { attemptId: string; runId: string }, refs: unknown): Promise<AttemptResult> {
  if (!Array.isArray(refs) || refs.length === 0) throw new Error('the job result lists no files');
  const dest = attemptDir(runDir, expect.attemptId);
  const staging = join(attemptsDir(runDir), `.${expect.attemptId}.${process.pid}.incoming`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  try {
    let record: AttemptResult | undefined;
    for (const ref of refs as Array<Partial<ArtifactRef>>) {
      const abs = safePath(staging, ref.path);
      if (!isSha256(ref.sha256)) throw new Error(`the job result has no valid hash for ${String(ref.path)}`);
      const bytes = await getBlob(redis, ref.sha256);
      await mkdir(dirname(abs), { recursive: true });
      await writeFile(abs, bytes, { flag: 'wx' });
      if (ref.path === ATTEMPT_FILES.record) record = JSON.parse(bytes.toString('utf8')) as AttemptResult;
    }
    if (record === undefined) throw new Error('the job result has no attempt.json');
    if (record.attemptId !== expect.attemptId || record.runId !== expect.runId)
      throw new Error(`the job result's attempt.json belongs to ${String(record.runId)}/${String(record.attemptId)}`);
    await rm(dest, { recursive: true, force: true });
    await rename(staging, dest);
    return record;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
