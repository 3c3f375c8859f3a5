import { createHash } from 'node:crypto';
import type { AddedLinesScan } from '../evidence/index.js';
import { isCommentOnly, RUNNER_INTERNALS_RULES } from './runner-internals-rules.js';
import { isExampleValue, SECRET_DETECTORS } from './secret-detectors.js';

/**
 * The only checks that read file content (secrets, runner_internals) are split in two: detection
 * here (added lines → findings, once, when the attempt is verified) and judging in the checks
 * (findings + policy + paths → outcome). A trace carries the findings, never the lines, so an
 * offline replay runs the very judging code a live run does.
 */
export interface ContentFinding {
  /** `secret`: a built-in detector (`detector` is its id); `literal`: the task's n-th literal (`literal#n`); `runner`: a runner-internals rule id. */
  kind: 'secret' | 'literal' | 'runner';
  detector: string;
  path: string;
  line: number;
  /** SHA-256 of the matched text: tells findings apart without holding the value. */
  matchSha256: string;
  /** runner findings only: the start of the line, for a reviewer of attempt.json (code, not a secret); traces drop it. */
  excerpt?: string;
}

export interface ContentScan {
  /** Every file the added-lines scan read, in its order. */
  files: Array<{ path: string; binary: boolean }>;
  complete: boolean;
  incomplete?: string;
  findings: ContentFinding[];
}

const EXCERPT_CHARS = 120;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Runs every detector (whatever the policy enables: judging filters by preset) over the added
 * lines. Literal values come from the task's policy; their findings name the literal by position.
 */
export function detectContent(scan: AddedLinesScan | undefined, literals: readonly string[]): ContentScan | undefined {
  if (!scan) return undefined;
  const findings: ContentFinding[] = [];
  for (const file of scan.files) {
    for (const { line, text } of file.lines) {
      for (const detector of SECRET_DETECTORS) {
        detector.regex.lastIndex = 0;
        for (const match of text.matchAll(detector.regex)) {
          if (!isExampleValue(match[0])) {
            findings.push({ kind: 'secret', detector: detector.id, path: file.path, line, matchSha256: sha256(match[0]) });
            break;
          }
        }
      }
      literals.forEach((literal, i) => {
        if (literal !== '' && text.includes(literal))
          findings.push({ kind: 'literal', detector: `literal#${i + 1}`, path: file.path, line, matchSha256: sha256(literal) });
      });
      if (file.binary || isCommentOnly(file.path, text)) continue;
      for (const rule of RUNNER_INTERNALS_RULES) {
        const match = rule.regex.exec(text);
        if (match) findings.push({ kind: 'runner', detector: rule.id, path: file.path, line, matchSha256: sha256(match[0]), excerpt: excerpt(text) });
      }
    }
  }
  return {
    files: scan.files.map((f) => ({ path: f.path, binary: f.binary })),
    complete: scan.complete,
    ...(scan.incomplete !== undefined ? { incomplete: scan.incomplete } : {}),
    findings,
  };
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > EXCERPT_CHARS ? `${trimmed.slice(0, EXCERPT_CHARS - 1)}…` : trimmed;
}
