/** ci.json: what `crucible ci` decided and on what evidence. `--json` prints it; the history keeps it. */
import type { Cause, CheckResult, DiffStats, TestRunEvidence } from '../../core/types/index.js';
import type { CiEvaluation } from './evaluate.js';

export const CI_SCHEMA_VERSION = 1;

/** A check as the registry judged it (id, passed, severity, message, evidence). */
export type CiCheckSummary = CheckResult;

export interface CiResult {
  schemaVersion: typeof CI_SCHEMA_VERSION;
  id: string;
  kind: 'ci';
  createdAt: string;
  /** ERROR: no verdict on the change (the test command gave no report at head nor at base). */
  verdict: 'PASS' | 'FAIL' | 'ERROR';
  cause: Cause;
  message: string;
  score?: number;
  /** Absolute directory of ci.json, report.md, results.sarif, diff.patch and the JUnit reports. */
  reportDir: string;
  repo: string;
  base: { ref: string; commit: string };
  /** `workingTree`: head is the checkout's files, not a commit. */
  head: { ref: string; commit: string } | { workingTree: true };
  /** The config file (and the commit it was read at), or `flags`. */
  config: string;
  sandbox: string;
  checks: CiCheckSummary[];
  tests: TestRunEvidence;
  baselineTests?: TestRunEvidence;
  diff: { filesChanged: number; added: number; deleted: number; files: DiffStats['files'] };
}

export interface CiMeta {
  id: string;
  createdAt: string;
  reportDir: string;
  repo: string;
  base: CiResult['base'];
  head: CiResult['head'];
  config: string;
  sandbox: string;
}

export function ciResult(meta: CiMeta, evaluation: CiEvaluation): CiResult {
  const { grade, diff } = evaluation;
  return {
    schemaVersion: CI_SCHEMA_VERSION,
    ...meta,
    kind: 'ci',
    verdict: grade.verdict,
    cause: grade.cause,
    message: grade.message,
    ...(grade.score !== undefined ? { score: grade.score } : {}),
    checks: evaluation.checks.map(summary),
    tests: evaluation.tests,
    ...(evaluation.baselineTests ? { baselineTests: evaluation.baselineTests } : {}),
    diff: { filesChanged: diff.filesChanged, added: diff.added, deleted: diff.deleted, files: diff.files },
  };
}

function summary(check: CheckResult): CiCheckSummary {
  return { id: check.id, passed: check.passed, severity: check.severity, message: check.message, evidence: check.evidence };
}

/** One line for the history and the terminal: what was evaluated and why it passed or failed. */
export function ciTitle(result: CiResult): string {
  const head = 'workingTree' in result.head ? 'working tree' : `${result.head.ref} (${result.head.commit.slice(0, 10)})`;
  return `ci ${result.verdict} ${result.cause}: ${head} against ${result.base.ref} (${result.base.commit.slice(0, 10)}) — ${result.message}`;
}
