/**
 * Shaping tool output for the model. Two rules: long output is cut to a budget (command and test
 * output by format/output-cut.ts, which keeps the failure lines wherever they are; file content by
 * truncateMiddle, with a note of the full size), and nothing that varies between runs of the same attempt (the attempt's absolute
 * paths, test durations) reaches the model — a request that differs from the recorded one cannot
 * be replayed from a cassette.
 */

/** Head and tail of `text` within `maxChars`, with a note of how much was cut. */
export function truncateMiddle(text: string, maxChars: number, hint = ''): string {
  if (text.length <= maxChars) return text;
  const head = Math.ceil(maxChars * 0.6);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  const note = `\n[… ${omitted} characters omitted; the full output was ${text.length} characters${hint ? `; ${hint}` : ''} …]\n`;
  return text.slice(0, head) + note + text.slice(text.length - tail);
}

/** Replaces each absolute path (longest first) wherever it appears; `/abs/ws/src` → `./src`. */
export function scrubPaths(text: string, replacements: ReadonlyArray<readonly [string, string]>): string {
  let out = text;
  const ordered = [...replacements].filter(([from]) => from.length > 1).sort((a, b) => b[0].length - a[0].length);
  for (const [from, to] of ordered) out = out.split(from).join(to);
  return out;
}

/**
 * Test runners print timings ("(0.59ms)", "duration_ms 77.9", "in 0.47s", "Time: 1.2 s"), which
 * differ on every run. They carry nothing the model needs, so they are masked.
 */
export function maskDurations(text: string): string {
  return text
    .replace(/\((\d+(?:\.\d+)?)\s?(ms|s)\)/g, '(<t>$2)')
    .replace(/\b(duration_ms|duration)(\s+)\d+(?:\.\d+)?/g, '$1$2<t>')
    .replace(/\b(in|Time:|Duration)(\s+)\d+(?:\.\d+)?(\s?)(ms|s)\b/g, '$1$2<t>$3$4');
}
