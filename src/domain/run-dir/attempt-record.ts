import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import type { AttemptResult, TestRunEvidence } from '../../core/types/index.js';
import { writeJsonAtomic } from './atomic.js';
import { attemptDir, attemptFile, attemptRecordFile } from './names.js';
import { peekJson } from './plan-file.js';

/*
 * The attempt record in its two shapes: the full record (attempt.json, AttemptResult: every piece
 * of evidence) and the slim record a run keeps in memory (SlimAttempt). The list item every table
 * shows is built from either one, or from a history row, by report/view.ts's listItemOf.
 */

declare const slimmed: unique symbol;

/**
 * The part of an attempt a run keeps in memory after recording it: everything the statistics and
 * the run's tables read, without the bulky evidence (test output tails, per-file diff lines, failing
 * test lists, check evidence) that lives in attempt.json and the history. A 10 000-attempt run holds
 * 10 000 of these, so their size is the run's memory. The brand says the evidence was dropped:
 * a reader that needs it reads attempt.json again (readAttemptRecord).
 */
export type SlimAttempt = AttemptResult & { readonly [slimmed]: true };

export function slimAttempt(a: AttemptResult): SlimAttempt {
  const slim: AttemptResult = {
    ...a,
    tests: slimTests(a.tests),
    heldOut: slimTests(a.heldOut),
    diff: a.diff ? { ...a.diff, files: [] } : undefined,
    checks: a.checks.map((c) => ({ ...c, evidence: {} })),
    message: a.message.length > 300 ? `${a.message.slice(0, 299)}…` : a.message,
  };
  return slim as SlimAttempt;
}

function slimTests(t: TestRunEvidence | undefined): TestRunEvidence | undefined {
  if (t === undefined) return undefined;
  return {
    ...t,
    outputTail: '',
    failToPass: { ...t.failToPass, failing: [] },
    passToPass: { ...t.passToPass, failing: [] },
  };
}

/** attempt.json's bytes and their sha256 (what the checkpoint records), or undefined when it is missing. */
export async function readAttemptBytes(runDir: string, attemptId: string): Promise<{ bytes: Buffer; hash: string } | undefined> {
  try {
    const bytes = await readFile(attemptRecordFile(runDir, attemptId));
    return { bytes, hash: createHash('sha256').update(bytes).digest('hex') };
  } catch {
    return undefined;
  }
}

/**
 * The full record of one attempt of a run; undefined when attempt.json is missing, is not JSON, or
 * is not a record of this attempt (a file copied from elsewhere).
 */
export async function readAttemptRecord(runDir: string, attemptId: string): Promise<AttemptResult | undefined> {
  let parsed: Partial<AttemptResult>;
  try {
    parsed = JSON.parse(await readFile(attemptRecordFile(runDir, attemptId), 'utf8')) as Partial<AttemptResult>;
  } catch {
    return undefined;
  }
  return parsed.attemptId === attemptId && Array.isArray(parsed.checks) ? (parsed as AttemptResult) : undefined;
}

/** attempt.json of an attempt directory as far as it reads, for views that tolerate any version. */
export function peekAttemptRecord(dir: string): Partial<AttemptResult> | undefined {
  const value = peekJson(attemptFile(dir, 'record'));
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Partial<AttemptResult>) : undefined;
}

/** Writes a record as attempt.json (atomically), creating the attempt directory if the runner left none. */
export async function writeAttemptRecord(runDir: string, result: AttemptResult): Promise<void> {
  await mkdir(attemptDir(runDir, result.attemptId), { recursive: true });
  await writeJsonAtomic(attemptRecordFile(runDir, result.attemptId), result);
}
