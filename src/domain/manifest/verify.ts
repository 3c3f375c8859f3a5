import { lstat, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ZodError, ZodType } from 'zod';
import { schemaError } from '../../core/input/index.js';
import { walkArtifacts, type ArtifactEntry } from './artifacts.js';
import { sha256Hex } from './canonical.js';
import { attemptDir, attemptDirNames, attemptRecordFile, RUN_FILES } from '../run-dir/index.js';
import { attemptManifestSchema, MANIFEST_FILE, runManifestSchema } from './schema.js';

export type ProblemKind = 'changed' | 'missing' | 'unexpected' | 'schema';

/** One thing that does not match: the file (relative to the run directory) and what is wrong. */
export interface ManifestProblem {
  file: string;
  kind: ProblemKind;
  detail: string;
}

export interface VerifyReport {
  runId: string;
  runDir: string;
  ok: boolean;
  /** Entries compared (files, symlinks and attempt manifests). */
  checked: number;
  attempts: number;
  problems: ManifestProblem[];
}

/**
 * Recomputes every hash a run's manifests record and compares them with the directory as it is
 * now; runs nothing. The run manifest commits to each attempt's manifest, which commits to the
 * attempt's files. Paths from the manifests are only compared, never opened: what is read is what
 * a walk of the directory finds (symlinks never followed).
 */
export async function verifyRunDir(runDir: string): Promise<VerifyReport> {
  const problems: ManifestProblem[] = [];
  let checked = 0;
  const report = (runId: string, attempts: number): VerifyReport => ({ runId, runDir, ok: problems.length === 0, checked, attempts, problems });
  const run = await readManifest(join(runDir, MANIFEST_FILE), MANIFEST_FILE, problems);
  if (run === undefined) return report(basename(runDir), 0);
  const parsed = runManifestSchema.safeParse(run.value);
  if (!parsed.success) {
    problems.push({ file: MANIFEST_FILE, kind: 'schema', detail: schemaDetail(MANIFEST_FILE, run.text, runManifestSchema, parsed.error) });
    return report(basename(runDir), 0);
  }
  const manifest = parsed.data;
  if (manifest.runId !== basename(runDir))
    problems.push({ file: MANIFEST_FILE, kind: 'schema', detail: `runId is ${manifest.runId}, the directory is ${basename(runDir)}` });
  checked += compareEntries('', manifest.files, await walkArtifacts(runDir, { skip: [RUN_FILES.attempts, MANIFEST_FILE, ...manifest.derived] }), problems);

  const recorded = new Set<string>();
  for (const entry of manifest.attempts) {
    const where = `attempts/${entry.attemptId}`;
    if (!isSafeName(entry.attemptId) || recorded.has(entry.attemptId)) {
      problems.push({ file: MANIFEST_FILE, kind: 'schema', detail: `attempt id ${JSON.stringify(entry.attemptId)} is not a single, unique directory name` });
      continue;
    }
    recorded.add(entry.attemptId);
    const dir = attemptDir(runDir, entry.attemptId);
    if (!(await isDirectory(dir))) {
      problems.push({ file: where, kind: 'missing', detail: 'the attempt directory is gone' });
      continue;
    }
    if (entry.manifest === null) {
      checked += compareEntries(`${where}/`, entry.artifacts, await walkArtifacts(dir, { skip: [...manifest.scratch, MANIFEST_FILE] }), problems);
      if (await exists(join(dir, MANIFEST_FILE)))
        problems.push({ file: `${where}/${MANIFEST_FILE}`, kind: 'unexpected', detail: 'the run manifest records no manifest for this attempt' });
      continue;
    }
    checked++;
    const file = `${where}/${MANIFEST_FILE}`;
    const attempt = await readManifest(join(dir, MANIFEST_FILE), file, problems);
    if (attempt === undefined) continue;
    if (attempt.sha256 !== entry.manifest) problems.push({ file, kind: 'changed', detail: hashDetail(entry.manifest, attempt.sha256) });
    const parsedAttempt = attemptManifestSchema.safeParse(attempt.value);
    if (!parsedAttempt.success) {
      problems.push({ file, kind: 'schema', detail: schemaDetail(file, attempt.text, attemptManifestSchema, parsedAttempt.error) });
      continue;
    }
    const a = parsedAttempt.data;
    if (a.attemptId !== entry.attemptId) problems.push({ file, kind: 'schema', detail: `attemptId is ${a.attemptId}, the directory is ${entry.attemptId}` });
    if (a.parentRun !== manifest.runId) problems.push({ file, kind: 'schema', detail: `parentRun is ${a.parentRun}, the run is ${manifest.runId}` });
    checked += compareEntries(`${where}/`, a.artifacts, await walkArtifacts(dir, { skip: [...a.scratch, MANIFEST_FILE] }), problems);
  }
  for (const name of await attemptDirNames(runDir)) {
    if (recorded.has(name)) continue;
    // An attempt cut off by an interrupt leaves a directory without attempt.json until a resume reruns it.
    const unfinished = !(await exists(attemptRecordFile(runDir, name)));
    problems.push({
      file: `attempts/${name}`,
      kind: 'unexpected',
      detail: unfinished ? 'not in the run manifest: an attempt that did not finish (a resume runs it)' : 'not in the run manifest',
    });
  }
  return report(manifest.runId, recorded.size);
}

/** Compares recorded entries with the walk of the directory; returns how many recorded entries were compared. */
function compareEntries(prefix: string, recorded: readonly ArtifactEntry[], found: readonly ArtifactEntry[], problems: ManifestProblem[]): number {
  const now = new Map(found.map((e) => [e.path, e]));
  const seen = new Set<string>();
  for (const entry of recorded) {
    seen.add(entry.path);
    const file = `${prefix}${entry.path}`;
    const current = now.get(entry.path);
    if (current === undefined) problems.push({ file, kind: 'missing', detail: `recorded as a ${entry.type}` });
    else if (current.type !== entry.type) problems.push({ file, kind: 'changed', detail: `recorded as a ${entry.type}, now a ${current.type}` });
    else if (entry.type === 'file' && current.type === 'file' && current.sha256 !== entry.sha256)
      problems.push({ file, kind: 'changed', detail: hashDetail(entry.sha256, current.sha256) });
  }
  for (const entry of found) {
    if (!seen.has(entry.path)) problems.push({ file: `${prefix}${entry.path}`, kind: 'unexpected', detail: `a ${entry.type} the manifest does not list` });
  }
  return recorded.length;
}

function hashDetail(recorded: string, now: string): string {
  return `sha256 ${recorded.slice(0, 12)}… recorded, ${now.slice(0, 12)}… now`;
}

/** Reads a manifest that must be a regular file (a symlink is refused, never followed) holding JSON. */
async function readManifest(path: string, file: string, problems: ManifestProblem[]): Promise<{ value: unknown; text: string; sha256: string } | undefined> {
  let bytes: Buffer;
  try {
    const info = await lstat(path);
    if (!info.isFile()) {
      problems.push({ file, kind: 'changed', detail: `not a regular file (${info.isSymbolicLink() ? 'a symlink' : 'another kind'})` });
      return undefined;
    }
    bytes = await readFile(path);
  } catch {
    problems.push({ file, kind: 'missing', detail: 'no manifest (a run written before manifests, or one cut off before it ended)' });
    return undefined;
  }
  const sha256 = sha256Hex(bytes);
  try {
    const text = bytes.toString('utf8');
    return { value: JSON.parse(text) as unknown, text, sha256 };
  } catch {
    problems.push({ file, kind: 'schema', detail: 'not valid JSON' });
    return undefined;
  }
}

/** The shared one-line schema message (line, field, problem, fix) without the file, which the problem names already. */
function schemaDetail(file: string, text: string, schema: ZodType, error: ZodError): string {
  const found = schemaError(file, text, schema, error.issues, MANIFEST_SCHEMA);
  const line = found.location.line !== undefined ? `line ${found.location.line}: ` : '';
  return `${line}${found.location.field ? `${found.location.field}: ` : ''}${found.problem}${found.fix ? ` (fix: ${found.fix})` : ''}`;
}

// Manifests are written by Crucible, never by hand: one that does not match was changed or comes from another version.
const MANIFEST_SCHEMA = { reference: 'docs/evidence.md#manifests; a manifest that does not match was edited or written by another version' };

function isSafeName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
