import { InputError } from '../../core/errors.js';

/**
 * SWE-bench's published instance format (the rows of `princeton-nlp/SWE-bench*` and
 * `SWE-bench/SWE-bench*`), read from JSON Lines or a JSON array. `FAIL_TO_PASS` and `PASS_TO_PASS`
 * are JSON-encoded string lists in the dataset files; an already decoded list is accepted too.
 */
export interface SweBenchInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
  patch: string;
  test_patch: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  version?: string;
  environment_setup_commit?: string;
  hints_text?: string;
  created_at?: string;
  /** SWE-bench Verified's annotation of how long a fix takes ("15 min - 1 hour"). */
  difficulty?: string;
}

/** An instance with where it was read from, for errors (`file:line` or `file: [index]`). */
export interface LocatedInstance {
  where: string;
  instance: SweBenchInstance;
  /** The record's fields outside the published set, kept as read (a vendored dataset's additions). */
  extra: Record<string, unknown>;
}

const REQUIRED = ['instance_id', 'repo', 'base_commit', 'problem_statement', 'patch', 'test_patch'] as const;
const OPTIONAL = ['version', 'environment_setup_commit', 'hints_text', 'created_at', 'difficulty'] as const;
const KNOWN = new Set<string>([...REQUIRED, ...OPTIONAL, 'FAIL_TO_PASS', 'PASS_TO_PASS']);
const INSTANCE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const REPO = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+$/;
const COMMIT = /^[0-9a-f]{7,64}$/;

/** Every instance in `text`: a JSON array (`.json`, or text starting with `[`) or one object per line. */
export function parseInstances(text: string, file: string): LocatedInstance[] {
  const trimmed = text.trimStart();
  if (trimmed === '') throw new InputError(`${file}: no instances (fix: give a SWE-bench .jsonl or .json file)`);
  if (trimmed.startsWith('[')) {
    let rows: unknown;
    try {
      rows = JSON.parse(text);
    } catch (error) {
      throw new InputError(`${file}: not valid JSON (${(error as Error).message}) (fix: a JSON array of instances, or one instance per line)`);
    }
    if (!Array.isArray(rows)) throw new InputError(`${file}: expected an array of instances`);
    return rows.map((row, index) => {
      const where = `${file}: [${index}]`;
      return { where, instance: checkInstance(row, where), extra: extraFields(row) };
    });
  }
  const out: LocatedInstance[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new InputError(`${where}: not valid JSON (${(error as Error).message}) (fix: one JSON object per line)`);
    }
    out.push({ where, instance: checkInstance(row, where), extra: extraFields(row) });
  });
  return out;
}

function extraFields(row: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row as Record<string, unknown>).filter(([key]) => !KNOWN.has(key)));
}

/** One row checked field by field; the first problem is the error, naming the field and the fix. */
export function checkInstance(row: unknown, where: string): SweBenchInstance {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new InputError(`${where}: expected an instance object`);
  const record = row as Record<string, unknown>;
  const label = typeof record.instance_id === 'string' ? `${where}: ${record.instance_id}` : where;
  for (const field of REQUIRED) {
    const value = record[field];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new InputError(
        `${label}: field ${field} is ${value === undefined ? 'missing' : 'not a non-empty string'} (fix: every instance needs ${REQUIRED.join(', ')})`,
      );
    }
  }
  for (const field of OPTIONAL) {
    const value = record[field];
    if (value !== undefined && value !== null && typeof value !== 'string') throw new InputError(`${label}: field ${field} must be a string`);
  }
  const id = record.instance_id as string;
  if (!INSTANCE_ID.test(id)) throw new InputError(`${label}: instance_id may contain letters, digits, ".", "_" and "-" only (fix: rename the instance)`);
  const repo = record.repo as string;
  if (!REPO.test(repo) || repo.split('/').some((part) => part === '.' || part === '..'))
    throw new InputError(`${label}: repo ${JSON.stringify(repo)} is not owner/name (fix: e.g. "psf/requests")`);
  const commit = record.base_commit as string;
  if (!COMMIT.test(commit)) throw new InputError(`${label}: base_commit ${JSON.stringify(commit)} is not a commit hash (fix: the full hex sha)`);
  const failToPass = testList(record.FAIL_TO_PASS, 'FAIL_TO_PASS', label);
  if (failToPass.length === 0) throw new InputError(`${label}: FAIL_TO_PASS is empty (fix: an instance needs at least one test its patch fixes)`);
  const instance: SweBenchInstance = {
    instance_id: id,
    repo,
    base_commit: commit,
    problem_statement: record.problem_statement as string,
    patch: record.patch as string,
    test_patch: record.test_patch as string,
    FAIL_TO_PASS: failToPass,
    PASS_TO_PASS: testList(record.PASS_TO_PASS ?? '[]', 'PASS_TO_PASS', label),
  };
  for (const field of OPTIONAL) {
    const value = record[field];
    if (typeof value === 'string') instance[field] = value;
  }
  return instance;
}

/** A list of test ids: a JSON-encoded string (the dataset files) or an array of strings. */
function testList(value: unknown, field: string, label: string): string[] {
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      throw new InputError(`${label}: field ${field} is not a JSON list (fix: a JSON-encoded list of test ids, e.g. "[\\"tests/test_a.py::test_b\\"]")`);
    }
  }
  if (value === undefined) throw new InputError(`${label}: field ${field} is missing (fix: a JSON-encoded list of test ids)`);
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item.trim() === ''))
    throw new InputError(`${label}: field ${field} must be a list of test ids (strings)`);
  return list as string[];
}
