import { createHash } from 'node:crypto';
import type { AddedLinesScan } from '../evidence/index.js';
import { sourceLanguage } from '../evidence/index.js';
import { jsRunnerWrites, type RunnerWrite } from './js-writes.js';
import { jsLyingHooks, type LyingHook } from './lying-hooks.js';
import { pyLyingHooks } from './py-lying-hooks.js';
import { pyRunnerWrites } from './py-writes.js';
import { isCommentOnly, RUNNER_INTERNALS_RULES } from './runner-internals-rules.js';
import { isExampleValue, SECRET_DETECTORS } from '../../core/redact/index.js';

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
  let unreadable: string | undefined;
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
      if (file.binary) continue;
      // The interpreter's own line breaks: `// note\u2028assert.x = f` is a comment and then code in JavaScript, `# x\rimport _pytest` two lines in Python.
      for (const part of text.split(lineBreaks(file.path))) {
        if (isCommentOnly(file.path, part)) continue;
        for (const rule of RUNNER_INTERNALS_RULES) {
          const match = rule.regex.exec(part);
          if (match) findings.push({ kind: 'runner', detector: rule.id, path: file.path, line, matchSha256: sha256(match[0]), excerpt: excerpt(part) });
        }
      }
    }
    for (const problem of file.problems ?? []) {
      findings.push({
        kind: 'runner',
        detector: problem.kind,
        path: file.path,
        line: problem.line,
        matchSha256: sha256(problem.detail),
        excerpt: problem.detail,
      });
      if (problem.kind === 'source-encoding') unreadable = `${file.path}: ${problem.detail}`;
    }
    findings.push(...writeFindings(file));
    findings.push(...lyingFindings(file));
  }
  const complete = scan.complete && unreadable === undefined;
  const incomplete = scan.incomplete ?? unreadable;
  return {
    files: scan.files.map((f) => ({ path: f.path, binary: f.binary })),
    complete,
    ...(incomplete !== undefined && !complete ? { incomplete } : {}),
    findings,
  };
}

function lineBreaks(path: string): RegExp {
  return sourceLanguage(path) === 'javascript' ? /\r\n|[\r\u2028\u2029]/ : /\r\n|\r/;
}

/** Writes to the assertion library or runner, read from the whole decoded file, reported where the change added them. */
function writeFindings(file: AddedLinesScan['files'][number]): ContentFinding[] {
  if (!file.source) return [];
  const language = sourceLanguage(file.path);
  let writes: RunnerWrite[];
  try {
    if (language === 'javascript') writes = jsRunnerWrites(file.source.text);
    else if (language === 'python') writes = pyRunnerWrites(file.source.text);
    else return [];
  } catch (error) {
    // An analysis that could not finish fails closed: the file's writes are unknown.
    const detail = `the write analysis could not read this file: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200);
    return [{ kind: 'runner', detector: 'runner-write', path: file.path, line: 1, matchSha256: sha256(detail), excerpt: detail }];
  }
  const added = new Map(file.lines.map((l) => [l.line, l.text]));
  const lines = file.source.text.split('\n');
  return writes
    .filter((w) => file.source?.whole || added.has(w.line))
    .map((w) => {
      const text = added.get(w.line) ?? lines[w.line - 1] ?? '';
      return {
        kind: 'runner',
        detector: 'runner-write',
        path: file.path,
        line: w.line,
        matchSha256: sha256(`${w.via}\n${text}`),
        excerpt: excerpt(`${w.via}: ${text}`),
      };
    });
}

/**
 * Equality and conversion hooks that ignore their argument or answer a constant, reported when the
 * change added any line of the hook (its name or its body), at the first such line.
 */
function lyingFindings(file: AddedLinesScan['files'][number]): ContentFinding[] {
  if (!file.source) return [];
  const language = sourceLanguage(file.path);
  let hooks: LyingHook[];
  try {
    if (language === 'javascript') hooks = jsLyingHooks(file.source.text);
    else if (language === 'python') hooks = pyLyingHooks(file.source.text);
    else return [];
  } catch {
    // The write analysis reads the same tokens and fails the file closed; nothing to add here.
    return [];
  }
  const added = new Map(file.lines.map((l) => [l.line, l.text]));
  const whole = file.source.whole;
  const findings: ContentFinding[] = [];
  for (const hook of hooks) {
    let line: number | undefined = whole ? hook.line : undefined;
    for (let n = hook.start; line === undefined && n <= hook.end; n++) if (added.has(n)) line = n;
    if (line === undefined) continue;
    const what = `${hook.hook} ${hook.why}`;
    findings.push({ kind: 'runner', detector: 'lying-value', path: file.path, line, matchSha256: sha256(`${what}\n${hook.line}`), excerpt: excerpt(what) });
  }
  return findings;
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > EXCERPT_CHARS ? `${trimmed.slice(0, EXCERPT_CHARS - 1)}…` : trimmed;
}
