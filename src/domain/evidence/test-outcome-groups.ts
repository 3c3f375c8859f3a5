/**
 * Fail-to-pass / pass-to-pass classification: matches the ids a task names against the parsed
 * test cases, exactly (no prefix, case or whitespace leniency: ids come from junit-id.ts).
 *
 * An explicitly listed id (F2P, or P2P given as a list) passes only when it appears exactly once
 * and passed. Otherwise it is failing with one reason, checked in this order:
 *   - `missing`    no case has that id;
 *   - `failed`     some case with that id failed (also when the id appears more than once:
 *                  pytest writes a second `<testcase>` for a test that failed and then errored in
 *                  teardown, and "it failed" is the more useful diagnosis);
 *   - `duplicated` the id appears more than once and none of those cases failed: we cannot tell
 *                  which one the task meant, and a same-named passing copy must not stand in for it;
 *   - `skipped`    its only case was skipped.
 * Ids listed twice in the spec are counted once. A `missing` id names the reported ids nearest to
 * it (`near`, for a "did you mean" in messages), for the first few missing ids of a group.
 *
 * `passToPass: 'all_others'` means every parsed id not in F2P, and is more lenient because nobody
 * chose those ids: a test that was skipped (every case with the id skipped) is left out of the group
 * altogether rather than counted, an id appearing several times passes when none of its cases
 * failed, and any failed case makes it `failed`. So `total === passed + failing.length` always.
 */
import { nearestIds } from '../../core/format/index.js';
import type { DuplicateIds, TestCaseResult, TestGroupOutcome, TestSpec } from '../../core/types/index.js';

export type TestSelection = Pick<TestSpec, 'failToPass' | 'passToPass'>;

export interface TestClassification {
  failToPass: TestGroupOutcome;
  passToPass: TestGroupOutcome;
}

type FailingReason = TestGroupOutcome['failing'][number]['reason'];

export function classifyTests(cases: readonly TestCaseResult[], spec: TestSelection): TestClassification {
  const byId = groupById(cases);
  const failToPass = classifyListed(unique(spec.failToPass), byId);
  const passToPass = spec.passToPass === 'all_others' ? classifyAllOthers(byId, new Set(spec.failToPass)) : classifyListed(unique(spec.passToPass), byId);
  return { failToPass, passToPass };
}

/**
 * Every group counted as failing with reason `missing`: what a run that produced no usable
 * report is worth. `all_others` has no ids of its own then, so it is only as large as `knownIds`.
 */
export function classifyAsMissing(spec: TestSelection, knownIds: readonly string[] = []): TestClassification {
  const f2p = unique(spec.failToPass);
  const f2pSet = new Set(f2p);
  const p2p = spec.passToPass === 'all_others' ? unique(knownIds).filter((id) => !f2pSet.has(id)) : unique(spec.passToPass);
  return { failToPass: allMissing(f2p), passToPass: allMissing(p2p) };
}

/** How many cases share an id with another, and a few such ids (most-repeated first); undefined when none do. */
export function duplicateIds(cases: readonly TestCaseResult[], examples = 5): DuplicateIds | undefined {
  const dups = [...groupById(cases)].filter(([, group]) => group.length > 1);
  if (dups.length === 0) return undefined;
  return {
    ids: dups.length,
    cases: dups.reduce((sum, [, group]) => sum + group.length, 0),
    examples: dups
      .sort((a, b) => b[1].length - a[1].length)
      .slice(0, examples)
      .map(([id, group]) => ({ id, cases: group.length })),
  };
}

/** Distinct ids in first-seen order, e.g. for listing the ids a task author may choose from. */
export function listTestIds(cases: readonly TestCaseResult[]): string[] {
  return unique(cases.map((c) => c.id));
}

/** Missing ids given "did you mean" ids, per group: enough for any message, bounded for a task set gone wrong. */
export const MAX_NEAR_LOOKUPS = 10;
/** Nearest reported ids named per missing id. */
export const MAX_NEAR_IDS = 3;

function classifyListed(ids: readonly string[], byId: ReadonlyMap<string, TestCaseResult[]>): TestGroupOutcome {
  const outcome: TestGroupOutcome = { total: ids.length, passed: 0, failing: [] };
  let lookups = 0;
  for (const id of ids) {
    const reason = listedFailure(byId.get(id) ?? []);
    if (reason === undefined) outcome.passed++;
    else if (reason === 'missing' && byId.size > 0 && lookups++ < MAX_NEAR_LOOKUPS) {
      const near = nearestIds(id, byId.keys(), MAX_NEAR_IDS);
      outcome.failing.push(near.length > 0 ? { id, reason, near } : { id, reason });
    } else outcome.failing.push({ id, reason });
  }
  return outcome;
}

function listedFailure(matches: readonly TestCaseResult[]): FailingReason | undefined {
  if (matches.length === 0) return 'missing';
  if (matches.some((c) => c.status === 'failed')) return 'failed';
  if (matches.length > 1) return 'duplicated';
  return matches[0]?.status === 'skipped' ? 'skipped' : undefined;
}

function classifyAllOthers(byId: ReadonlyMap<string, TestCaseResult[]>, failToPass: ReadonlySet<string>): TestGroupOutcome {
  const outcome: TestGroupOutcome = { total: 0, passed: 0, failing: [] };
  for (const [id, matches] of byId) {
    if (failToPass.has(id) || matches.every((c) => c.status === 'skipped')) continue;
    outcome.total++;
    if (matches.some((c) => c.status === 'failed')) outcome.failing.push({ id, reason: 'failed' });
    else outcome.passed++;
  }
  return outcome;
}

function allMissing(ids: readonly string[]): TestGroupOutcome {
  return { total: ids.length, passed: 0, failing: ids.map((id) => ({ id, reason: 'missing' })) };
}

/** A Map keeps insertion order, so groups come out in report order. */
function groupById(cases: readonly TestCaseResult[]): Map<string, TestCaseResult[]> {
  const byId = new Map<string, TestCaseResult[]>();
  for (const c of cases) {
    const group = byId.get(c.id);
    if (group === undefined) byId.set(c.id, [c]);
    else group.push(c);
  }
  return byId;
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
