import { appendFile, readFile } from 'node:fs/promises';
import { toSummaryRow, type AttemptResult, type AttemptSummaryRow } from '../../core/types/index.js';
import { writeFileAtomic } from './atomic.js';
import { runFile } from './names.js';

/**
 * `checkpoint.jsonl`: one line per finished attempt, appended after its attempt.json is on disk.
 * It is the source of truth for "this attempt is done": an attempt.json without a line is an
 * attempt that was cut off and runs again; a line whose attempt.json no longer has the recorded
 * hash is evidence that changed after the fact and runs again too.
 */
export interface CheckpointEntry extends AttemptSummaryRow {
  index: number;
  /** sha256 of attempt.json's bytes as written. */
  sha256: string;
}

export function checkpointEntry(result: AttemptResult, hash: string): CheckpointEntry {
  return { ...toSummaryRow(result), index: result.index, sha256: hash };
}

/**
 * One `write` per line with O_APPEND: a crash leaves whole lines, or at worst a torn last line,
 * which readCheckpoint skips and the next resume rewrites away.
 */
export async function appendCheckpoint(runDir: string, entry: CheckpointEntry): Promise<void> {
  await appendFile(runFile(runDir, 'checkpoint'), `${JSON.stringify(entry)}\n`);
}

/** Replaces the checkpoint with exactly these entries (used by resume to drop torn and stale lines). */
export async function rewriteCheckpoint(runDir: string, entries: readonly CheckpointEntry[]): Promise<void> {
  await writeFileAtomic(runFile(runDir, 'checkpoint'), entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

/** Entries in file order, first occurrence of each attempt id; lines that do not parse are counted, not fatal. */
export async function readCheckpoint(runDir: string): Promise<{ entries: CheckpointEntry[]; malformed: number; duplicates: number }> {
  let text: string;
  try {
    text = await readFile(runFile(runDir, 'checkpoint'), 'utf8');
  } catch {
    return { entries: [], malformed: 0, duplicates: 0 };
  }
  const entries: CheckpointEntry[] = [];
  const seen = new Set<string>();
  let malformed = 0;
  let duplicates = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const entry = parseEntry(line);
    if (entry === undefined) malformed++;
    else if (seen.has(entry.attemptId)) duplicates++;
    else {
      seen.add(entry.attemptId);
      entries.push(entry);
    }
  }
  return { entries, malformed, duplicates };
}

function parseEntry(line: string): CheckpointEntry | undefined {
  try {
    const value = JSON.parse(line) as Partial<CheckpointEntry>;
    if (typeof value.attemptId === 'string' && typeof value.sha256 === 'string' && typeof value.index === 'number') {
      return value as CheckpointEntry;
    }
  } catch {
    // A torn line from a crash mid-append.
  }
  return undefined;
}
