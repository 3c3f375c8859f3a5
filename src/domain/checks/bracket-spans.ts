/**
 * Bracket matching and call-argument spans over a token list, shared by the JS/TS and Python
 * write analyses (js-writes.ts, py-writes.ts). `punct` names the token kind their tokenizer gives
 * punctuation ('punct' for JS, 'op' for Python).
 */
export interface SpanToken {
  kind: string;
  value: string;
}

const PAIRS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Per token list: for each opening bracket, the index after its match (one pass, so deep nesting costs no more than its length). */
const MATCHES = new WeakMap<readonly SpanToken[], Int32Array>();

function matches(tokens: readonly SpanToken[], punct: string): Int32Array {
  let table = MATCHES.get(tokens);
  if (table) return table;
  table = new Int32Array(tokens.length).fill(-1);
  const stack: Array<{ at: number; close: string }> = [];
  tokens.forEach((t, i) => {
    if (t.kind !== punct) return;
    const close = PAIRS[t.value];
    if (close) stack.push({ at: i, close });
    else if (stack.length > 0 && stack[stack.length - 1]?.close === t.value) table[(stack.pop() as { at: number }).at] = i + 1;
  });
  MATCHES.set(tokens, table);
  return table;
}

/** Index after the bracket that matches the one at `open` (the list's end when it has none). */
export function matching(tokens: readonly SpanToken[], open: number, punct: string): number {
  const end = matches(tokens, punct)[open] ?? -1;
  return end >= 0 ? end : tokens.length;
}

const OPENERS = new WeakMap<readonly SpanToken[], Map<number, number>>();

/** The opening bracket that the closing one at `close` closes, if any. */
export function openerOf(tokens: readonly SpanToken[], close: number, punct: string): number | undefined {
  let openers = OPENERS.get(tokens);
  if (!openers) {
    const table = matches(tokens, punct);
    openers = new Map();
    for (let i = 0; i < table.length; i++) if ((table[i] ?? -1) >= 0) openers.set((table[i] ?? 0) - 1, i);
    OPENERS.set(tokens, openers);
  }
  return openers.get(close);
}

/** Top-level argument spans of the call whose `(` is at `open` and whose match ends at `close`. */
export function argsOf(tokens: readonly SpanToken[], open: number, close: number, punct: string): Array<[number, number]> {
  const args: Array<[number, number]> = [];
  let start = open + 1;
  for (let i = open + 1; i < close - 1;) {
    const t = tokens[i];
    if (t?.kind === punct && t.value in PAIRS) {
      i = matching(tokens, i, punct);
      continue;
    }
    if (t?.kind === punct && t.value === ',') {
      args.push([start, i]);
      start = i + 1;
    }
    i++;
  }
  if (start < close - 1) args.push([start, close - 1]);
  return args;
}
