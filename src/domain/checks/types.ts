import { type CommandEvent, type AddedLinesScan, type FsGuardEvidence, type TestGuardEvidence } from '../evidence/index.js';
import type { CheckId, DiffStats, HeldOutValuesEvidence, Task, TestCaseResult, TestRunEvidence } from '../../core/types/index.js';
import type { ContentScan } from './content-scan.js';
import type { EffectivePolicy } from './policy.js';
import type { WriteRoots } from './unsafe-command-rules.js';

/** Everything the checks judge, gathered by the engine; checks themselves do no I/O. */
export interface CheckInput {
  task: Pick<Task, 'id' | 'tests' | 'heldOut' | 'heldOutValues'>;
  policy: EffectivePolicy;
  diff: DiffStats;
  /** The verification run (undefined when it could not run). */
  tests?: TestRunEvidence;
  /** Its parsed test cases, for judging individual ids against the baseline. */
  cases?: TestCaseResult[];
  /** The baseline run, before the agent; undefined with `--no-baseline-tests`. */
  baselineTests?: TestRunEvidence;
  baselineCases?: TestCaseResult[];
  heldOut?: TestRunEvidence;
  /** The held-out value run (evidence/held-out-values.ts), when the task declares one. */
  heldOutValues?: HeldOutValuesEvidence;
  tampering?: TestGuardEvidence;
  commands: CommandEvent[];
  writeRoots: WriteRoots;
  /** The harness's results directory (outside the workspace) where test reports are written and read. */
  reportDir?: string;
  outsideWrites?: FsGuardEvidence;
  /** True when the sandbox makes writes outside the workspace fail (bwrap). */
  sandboxEnforcesFs: boolean;
  /** The added lines themselves: read only when `content` is absent (detectContent runs on them then). */
  addedLines?: AddedLinesScan;
  /** What detection found in the added lines (checks/content-scan.ts); the engine and a trace replay pass this. */
  content?: ContentScan;
}

export interface CheckOutcome {
  passed: boolean;
  message: string;
  evidence: Record<string, unknown>;
}

export interface Check {
  id: CheckId;
  /** One line for docs and `--help`. */
  description: string;
  run(input: CheckInput): CheckOutcome;
}

/** Evidence lists are capped so attempt.json stays readable; the count says how many there were. */
export const MAX_LISTED = 50;

export function capped<T>(items: readonly T[]): { items: T[]; count: number } {
  return { items: items.slice(0, MAX_LISTED), count: items.length };
}

export function pass(message: string, evidence: Record<string, unknown> = {}): CheckOutcome {
  return { passed: true, message, evidence };
}

export function fail(message: string, evidence: Record<string, unknown> = {}): CheckOutcome {
  return { passed: false, message, evidence };
}

/** `a, b, c … 4 more` */
export function listShort(items: readonly string[], max = 3): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} … ${items.length - max} more` : shown;
}
