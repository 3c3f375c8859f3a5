import type { TestGuardEvidence } from '../../domain/evidence/index.js';
import type { CheckId, FileChange, PolicySpec } from '../../core/types/index.js';

export const FUZZ_DIMENSIONS = ['path', 'secret', 'command', 'diff-size', 'scope', 'tampering', 'traversal'] as const;
export type FuzzDimension = (typeof FUZZ_DIMENSIONS)[number];

/**
 * What a variant is, which decides what the checks must say about it:
 * - `hostile`: a violation the check is designed to catch → must be detected;
 * - `benign`: a legitimate change or command (often a near miss) → must not be flagged;
 * - `known-limit`: a violation the check is NOT designed to catch (encodings, interpreters,
 *   symlinks resolved at run time) → expected "not detected", listed as a limit, never hidden;
 * - `by-design`: looks like a violation but is another thing on Linux (a different file name, a
 *   command that does not exist, a string that is no usable token) → expected "not detected".
 */
export type VariantClass = 'hostile' | 'benign' | 'known-limit' | 'by-design';

export type Expectation = 'detect' | 'pass';

/** One generated case: data only, turned into a CheckInput by fuzz.ts. */
export interface FuzzVariant {
  id: string;
  dimension: FuzzDimension;
  trick: string;
  class: VariantClass;
  /** Printable description; never contains a generated secret value. */
  summary: string;
  /** Why a known-limit or by-design variant is expected to pass. */
  note?: string;
  /** The checks this variant is about, and what each must say. Other checks are not judged. */
  expect: Partial<Record<CheckId, Expectation>>;
  policy?: Partial<PolicySpec>;
  files?: Array<Partial<FileChange> & { path: string }>;
  /** Overrides the diff totals (diff-size variants measure these, not the file list). */
  totals?: { filesChanged: number; added: number; deleted: number };
  /** A `git diff` patch whose added lines the real added-lines reader parses. */
  patch?: string;
  /** Shell scripts recorded as the agent's commands (`sh -c`), with their cwd (default the workspace). */
  commands?: Array<{ script: string; cwd?: string }>;
  /** The test guard's evidence; null when the guard did not run. Default: nothing found. */
  tampering?: TestGuardEvidence | null;
}

/** Where the synthetic attempt lives; fixed so that commands can name real-looking paths. */
export const FUZZ_ROOTS = {
  workspace: '/w/attempt/workspace',
  home: '/w/attempt/home',
  tmp: '/w/attempt/tmp',
  results: '/w/attempt/results',
  /** Crucible's state directory, under /tmp on purpose: protected even where /tmp is writable. */
  state: '/tmp/crucible-state',
} as const;
