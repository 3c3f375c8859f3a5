/*
 * Cutting long command output down to a budget without losing why it failed. A cut in the middle
 * (or a tail) assumes the failures are at the end, which is false for TAP (`not ok` as each test
 * fails), for npm (its `npm error` lines come before a long log note) and for any runner that
 * prints a summary before the details. So a cut keeps the head and the tail, and every line that
 * carries a failure marker of a known runner wherever it is, with a line of context, as far as the
 * budget allows; each gap says how many lines it dropped, and a last line says what the cut did in
 * all (honest counts: lines cut, failure lines kept and failure lines that did not fit).
 *
 * Pure and free of Node APIs: the engine, the agents and the reports use it alike.
 */

/**
 * Lines that say a test or a command failed, by runner: TAP `not ok`; pytest `FAILED`, `E   `,
 * `Traceback`; unittest `FAIL:`/`ERROR:`; jest/vitest `FAIL `, `●`, `×`, `✕`; node:test `✖`; go
 * `--- FAIL`, `panicked at`/`panic:`; mocha/chai `AssertionError`; npm `npm error`, `npm ERR!`; git
 * `fatal:`; compilers' `error:`/`error[E…]`/`error TS…`; and any `SomethingError:` or `SomethingException:`.
 */
const FAILURE_MARKERS: readonly RegExp[] = [
  /^\s*not ok\b/,
  /\bFAILED\b/,
  /^\s*FAIL(:|\s|$)/,
  /^\s*ERROR:/,
  /^\s*--- FAIL/,
  /AssertionError/,
  /[✖✕×✗●]/,
  /Error:/,
  /Exception:/,
  /\berror(\[\w+\])?:/,
  /\berror TS\d+/,
  /\bERR!/,
  /\bnpm error\b/,
  /^\s*fatal:/,
  /panicked at|^panic:/,
  /^E {3}/,
  /^Traceback \(most recent call last\)/,
];

/** Only the start of a very long line is searched: markers sit near a line's start. */
const MARKER_SEARCH_CHARS = 2000;

/** Whether `line` carries a failure marker of a known runner (see FAILURE_MARKERS). */
export function isFailureLine(line: string): boolean {
  const start = line.length > MARKER_SEARCH_CHARS ? line.slice(0, MARKER_SEARCH_CHARS) : line;
  return FAILURE_MARKERS.some((m) => m.test(start));
}

export interface CutBudget {
  /** Most characters of the result, gap and summary lines included. */
  maxChars: number;
  /** Most lines of the output kept (gap and summary lines not counted); default no limit. */
  maxLines?: number;
  /** Lines always wanted from the start (default 10) and the end (default 20), budget allowing. */
  headLines?: number;
  tailLines?: number;
  /** A longer line keeps its start and end (default: a quarter of maxChars up to 2,000, or the whole budget shared by a few lines). */
  maxLineChars?: number;
  /** Appended to the summary line: what to do to see the rest. */
  hint?: string;
}

/** What a cut kept and dropped; `text` is the output as shortened. */
export interface CutResult {
  text: string;
  cut: boolean;
  /** Lines of the output, and how many of them the cut dropped. */
  lines: number;
  linesCut: number;
  /** Lines with a failure marker, and how many of them did not fit the budget. */
  failureLines: number;
  failureLinesCut: number;
}

/** Upper bound on a gap line's length (`[… 1,234,567,890 lines cut …]`), reserved whenever a block may open a gap. */
const GAP_CHARS = 40;
/** Upper bound on the summary line without its hint. */
const SUMMARY_CHARS = 110;

/**
 * `text` within the budget: unchanged when it fits; otherwise its head and tail and every failure
 * line (with the line before and after) that fits, in order, each gap marked `[… N lines cut …]`,
 * then one line `[… N lines cut, M failure lines kept …]` that also counts failure lines that did
 * not fit. What budget is left after that goes to more of the tail, then more of the head.
 */
export function cutOutput(text: string, budget: CutBudget): string {
  return cutOutputDetail(text, budget).text;
}

export function cutOutputDetail(text: string, budget: CutBudget): CutResult {
  const raw = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const maxLines = budget.maxLines ?? Number.POSITIVE_INFINITY;
  const failures = raw.flatMap((line, i) => (isFailureLine(line) ? [i] : []));
  const whole = { text, cut: false, lines: raw.length, linesCut: 0, failureLines: failures.length, failureLinesCut: 0 };
  if (text.length <= budget.maxChars && raw.length <= maxLines) return whole;

  const hint = budget.hint ? `; ${budget.hint}` : '';
  // A few long lines (minified output, one huge line) share the whole budget; many lines get a fair share each.
  const share = Math.floor((budget.maxChars - SUMMARY_CHARS - hint.length - GAP_CHARS) / raw.length) - 1;
  const maxLineChars = Math.max(40, budget.maxLineChars ?? Math.max(Math.min(2000, Math.floor(budget.maxChars / 4)), share));
  const lines = raw.map((line) => clipLine(line, maxLineChars));
  const keep = new Array<boolean>(lines.length).fill(false);
  let chars = SUMMARY_CHARS + hint.length;
  let kept = 0;
  /** Keeps lines [from, to) if they all fit; a block that may open a new gap pays for its gap line. */
  const take = (from: number, to: number): boolean => {
    const a = Math.max(0, from);
    const b = Math.min(lines.length, to);
    let cost = 0;
    let count = 0;
    for (let i = a; i < b; i++) {
      if (keep[i]) continue;
      cost += (lines[i] as string).length + 1;
      count++;
    }
    if (count === 0) return true;
    const joinsKept = (a > 0 && keep[a - 1] === true) || (b < lines.length && keep[b] === true);
    if (!joinsKept) cost += GAP_CHARS;
    if (chars + cost > budget.maxChars || kept + count > maxLines) return false;
    for (let i = a; i < b; i++) keep[i] = true;
    chars += cost;
    kept += count;
    return true;
  };

  const head = budget.headLines ?? 10;
  const tail = budget.tailLines ?? 20;
  for (let i = 0; i < Math.min(head, lines.length); i++) if (!take(i, i + 1)) break;
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - tail); i--) if (!take(i, i + 1)) break;
  // Each failure line with its neighbours; when that does not fit, the failure line alone.
  for (const i of failures) if (!take(i - 1, i + 2)) take(i, i + 1);
  // What is left: more of the end (summaries), then more of the start, a line at a time.
  for (let i = lines.length - 1; i >= 0; i--) {
    if (keep[i]) continue;
    if (!take(i, i + 1)) break;
  }
  for (let i = 0; i < lines.length; i++) {
    if (keep[i]) continue;
    if (!take(i, i + 1)) break;
  }

  const out: string[] = [];
  let gap = 0;
  for (let i = 0; i <= lines.length; i++) {
    if (i < lines.length && !keep[i]) {
      gap++;
      continue;
    }
    if (gap > 0) out.push(`[… ${grouped(gap)} line${gap === 1 ? '' : 's'} cut …]`);
    gap = 0;
    if (i < lines.length) out.push(lines[i] as string);
  }
  const linesCut = keep.filter((k) => !k).length;
  const failureLinesCut = failures.filter((i) => !keep[i]).length;
  const clipped = lines.some((line, i) => keep[i] && line !== raw[i]);
  const parts = [linesCut > 0 ? `${grouped(linesCut)} of ${grouped(lines.length)} lines cut` : `all ${grouped(lines.length)} lines kept`];
  if (failures.length > 0) parts.push(`${grouped(failures.length - failureLinesCut)} failure line${failures.length - failureLinesCut === 1 ? '' : 's'} kept`);
  if (failureLinesCut > 0) parts.push(`${grouped(failureLinesCut)} failure line${failureLinesCut === 1 ? '' : 's'} cut`);
  if (clipped) parts.push('long lines shortened');
  out.push(`[… ${parts.join(', ')}${hint} …]`);
  return { text: out.join('\n'), cut: true, lines: lines.length, linesCut, failureLines: failures.length, failureLinesCut };
}

/** The budget of a failed setup command's excerpt: enough to show why, small enough for a record. */
export const FAILURE_EXCERPT_BUDGET: CutBudget = { maxChars: 4096, maxLines: 40, headLines: 5, tailLines: 10, maxLineChars: 400 };

/**
 * What a failed command printed, cut to FAILURE_EXCERPT_BUDGET: the head, the tail and the lines
 * around the error lines (every `npm error` line among them), each cut marked. Empty output gives ''.
 */
export function failureExcerpt(output: string): string {
  return cutOutput(output.replace(/\r\n?/g, '\n').trimEnd(), FAILURE_EXCERPT_BUDGET);
}

/** npm's pointer to its own log: always the last error line, and never the reason. */
const NOT_A_REASON = /A complete log of this run|^npm (error|ERR!)\s*$/;

/**
 * The one line that best says why a command failed, for a one-line message: the first failure
 * line (npm's `npm error code E…` rather than its closing note about the log), else the last
 * non-empty line; at most 300 characters.
 */
export function failureLine(output: string): string {
  const lines = output
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const line = lines.find((l) => isFailureLine(l) && !NOT_A_REASON.test(l)) ?? lines.at(-1) ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

/** A line longer than `max` keeps its start and end around a note of what was cut. */
function clipLine(line: string, max: number): string {
  if (line.length <= max) return line;
  // The note is at most ~36 characters for any line a machine can hold.
  const room = Math.max(0, max - 36);
  const headEnd = safeEnd(line, Math.ceil(room * 0.7));
  const tailStart = safeStart(line, line.length - (room - Math.ceil(room * 0.7)));
  return `${line.slice(0, headEnd)} [… ${grouped(tailStart - headEnd)} characters cut …] ${line.slice(tailStart)}`;
}

/** An end index that does not split a surrogate pair. */
function safeEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** A start index that does not begin inside a surrogate pair. */
function safeStart(text: string, start: number): number {
  const code = text.charCodeAt(start);
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}

/** 1204 → `1,204`: counts people read at a glance. */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
