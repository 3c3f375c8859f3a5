/**
 * Mutants of a fix: the oracle's patch with one small, plausible mistake in the lines it adds — a
 * comparison or operator swapped, a constant off by one, a condition negated, a statement dropped,
 * two arguments swapped, a return of a neighbouring value. Each site is found on tokens (the checks'
 * JS/TS and Python tokenizers), never by matching text, so a `<` in a string or a comment is never
 * touched. What a mutant changes is confined to the added lines; the rest of the patch is the
 * oracle's, so a mutant applies wherever the oracle does.
 */
import { createHash } from 'node:crypto';
import { matchingBracket, tokenizeJs, tokenizePython } from '../../domain/checks/index.js';
import { mulberry32 } from '../../domain/stats/index.js';
import { newSide, parsePatch, withNewSide, type Hunk, type ParsedPatch } from './patch-hunks.js';

export type MutationOperator =
  | 'comparison'
  | 'arithmetic'
  | 'logical'
  | 'constant'
  | 'boolean'
  | 'negate-condition'
  | 'drop-negation'
  | 'remove-statement'
  | 'swap-arguments'
  | 'return-value'
  | 'index-off-by-one';

export interface Mutant {
  /** The first 12 hex digits of the mutant patch's SHA-256: its name and cache key. */
  id: string;
  operator: MutationOperator;
  file: string;
  /** The line's number in the fixed file. */
  line: number;
  /** The added line as the oracle has it, and as the mutant has it (null: the mutant drops it). */
  before: string;
  after: string | null;
  patch: string;
}

export interface MutantSet {
  /** The sampled mutants, in patch order. */
  mutants: Mutant[];
  /** Distinct mutants found before sampling. */
  candidates: number;
  /** Edits that left the fix's text as it was (e.g. swapping two equal arguments): not mutants. */
  sameAsOracle: number;
  /** Files the oracle changes that no tokenizer here reads (neither JS/TS nor Python). */
  unsupportedFiles: string[];
}

type Language = 'js' | 'py';

const JS_EXTENSIONS = /\.(?:[cm]?[jt]s|[jt]sx)$/;

export function languageOf(path: string): Language | undefined {
  if (JS_EXTENSIONS.test(path)) return 'js';
  if (path.endsWith('.py')) return 'py';
  return undefined;
}

/** A token of either tokenizer, as the operators read it. */
interface Tok {
  kind: 'name' | 'number' | 'punct' | 'literal';
  value: string;
  line: number;
  start: number;
  end: number;
}

function tokensOf(text: string, language: Language): Tok[] {
  if (language === 'py') {
    let reached = 0;
    // An f-string's fields come after their string, inside its span: they stay part of the string.
    const outside = tokenizePython(text).filter((t) => (t.start >= reached ? ((reached = t.end), true) : false));
    return outside.map((t) => ({ ...t, kind: t.kind === 'op' ? 'punct' : t.kind === 'string' ? 'literal' : t.kind }));
  }
  return tokenizeJs(text).map((t) => ({ ...t, kind: t.kind === 'punct' || t.kind === 'name' || t.kind === 'number' ? t.kind : 'literal' }));
}

/** Each operator token's mutations, as `operator:replacement` pairs written as `a>b|c` (a becomes b, or c). */
const SHARED = {
  comparison: ['<><=|>', '<=><|>=', '>>>=|<', '>=>>|<=', '==>!=', '!=>=='],
  arithmetic: ['+>-', '->+', '*>/', '**>*', '+=>-=', '-=>+='],
};
const OWN: Record<Language, Partial<Record<MutationOperator, string[]>>> = {
  js: {
    comparison: ['===>!==', '!==>==='],
    arithmetic: ['/>*', '%>*', '++>--', '-->++'],
    logical: ['&&>||', '||>&&', '??>||'],
    boolean: ['true>false', 'false>true'],
  },
  py: {
    arithmetic: ['/>//|*', '//>/', '%>//'],
    logical: ['and>or', 'or>and'],
    boolean: ['True>False', 'False>True'],
  },
};

function swapTable(language: Language): Map<string, Array<[MutationOperator, string]>> {
  const table = new Map<string, Array<[MutationOperator, string]>>();
  const add = (operator: MutationOperator, rules: readonly string[]): void => {
    for (const rule of rules) {
      // The first `>` after the token splits it from its replacements (`>>>=` is `>` becoming `>=`).
      const split = rule.indexOf('>', 1);
      const from = rule.slice(0, split);
      table.set(from, [
        ...(table.get(from) ?? []),
        ...rule
          .slice(split + 1)
          .split('|')
          .map((to): [MutationOperator, string] => [operator, to]),
      ]);
    }
  };
  for (const [operator, rules] of Object.entries(SHARED)) add(operator as MutationOperator, rules);
  for (const [operator, rules] of Object.entries(OWN[language])) add(operator as MutationOperator, rules ?? []);
  return table;
}

const SWAPS: Record<Language, Map<string, Array<[MutationOperator, string]>>> = { js: swapTable('js'), py: swapTable('py') };

/** Names before a `(` that is not a call's. */
const NOT_CALLEES: Record<Language, Set<string>> = {
  js: new Set([
    'if',
    'while',
    'for',
    'switch',
    'catch',
    'function',
    'return',
    'typeof',
    'await',
    'with',
    'in',
    'of',
    'void',
    'delete',
    'yield',
    'case',
    'else',
    'do',
  ]),
  py: new Set(['if', 'elif', 'while', 'for', 'return', 'and', 'or', 'not', 'in', 'is', 'lambda', 'yield', 'assert', 'del', 'with', 'except', 'await', 'else']),
};

/** One change to a hunk's new side: a text edit, or an added line dropped. */
type Edit = { operator: MutationOperator; start: number; end: number; text: string } | { operator: 'remove-statement'; drop: number };

interface HunkText {
  text: string;
  /** Offset of each line's first character. */
  lineStarts: number[];
  added: boolean[];
}

function hunkText(hunk: Hunk): HunkText {
  const side = newSide(hunk);
  const lineStarts: number[] = [];
  let at = 0;
  for (const l of side) {
    lineStarts.push(at);
    at += l.text.length + 1;
  }
  return { text: side.map((l) => l.text).join('\n'), lineStarts, added: side.map((l) => l.added) };
}

/** Every edit a hunk's added lines offer, in text order. */
function editsOf(h: HunkText, language: Language): Edit[] {
  const tokens = tokensOf(h.text, language);
  const edits: Edit[] = [];
  const isAdded = (t: Tok | undefined): boolean => t !== undefined && h.added[t.line - 1] === true;
  const allAdded = (from: number, to: number): boolean => tokens.slice(from, to).every(isAdded);
  const punct = (t: Tok | undefined, v: string): boolean => t?.kind === 'punct' && t.value === v;
  const slice = (a: Tok, b: Tok): string => h.text.slice(a.start, b.end);
  const close = (open: number): number => matchingBracket(tokens, open, 'punct') - 1;
  const isValue = (t: Tok | undefined): boolean =>
    t !== undefined && (t.kind === 'name' || t.kind === 'number' || t.kind === 'literal' || punct(t, ')') || punct(t, ']'));

  tokens.forEach((t, i) => {
    if (!isAdded(t)) return;
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    const keyword = t.kind === 'name' || t.kind === 'punct';
    for (const [operator, text] of (keyword ? SWAPS[language].get(t.value) : undefined) ?? []) edits.push({ operator, start: t.start, end: t.end, text });
    if (t.kind === 'number' && /^\d+$/.test(t.value)) {
      const n = Number(t.value);
      edits.push({ operator: 'constant', start: t.start, end: t.end, text: String(n + 1) });
      if (n > 0) edits.push({ operator: 'constant', start: t.start, end: t.end, text: String(n - 1) });
    }
    if (language === 'py' && t.kind === 'name' && t.value === 'is')
      edits.push(
        punctOrName(next, 'not')
          ? { operator: 'comparison', start: t.end, end: (next as Tok).end, text: '' }
          : { operator: 'comparison', start: t.end, end: t.end, text: ' not' },
      );
    // Negated conditions, and negations dropped.
    if (t.kind === 'name' && (t.value === 'if' || t.value === 'while' || (language === 'py' && t.value === 'elif'))) {
      if (language === 'js' && punct(next, '(')) {
        const end = close(i + 1);
        const first = tokens[i + 2];
        const last = tokens[end - 1];
        if (first && last && end > i + 2 && allAdded(i, end + 1))
          edits.push({ operator: 'negate-condition', start: first.start, end: last.end, text: `!(${slice(first, last)})` });
      }
      if (language === 'py') {
        const colon = conditionEnd(tokens, i + 1, t.line);
        const first = tokens[i + 1];
        const last = tokens[colon - 1];
        if (colon > i + 1 && first && last && allAdded(i, colon + 1))
          edits.push({ operator: 'negate-condition', start: first.start, end: last.end, text: `not (${slice(first, last)})` });
      }
    }
    if (language === 'js' && punct(t, '!') && next && isAdded(next)) edits.push({ operator: 'drop-negation', start: t.start, end: next.start, text: '' });
    if (language === 'py' && t.kind === 'name' && t.value === 'not' && !punctOrName(prev, 'is') && !punctOrName(next, 'in') && next)
      edits.push({ operator: 'drop-negation', start: t.start, end: next.start, text: '' });
    // Calls with two arguments, swapped.
    if (punct(t, '(') && (prev?.kind === 'name' ? !NOT_CALLEES[language].has(prev.value) : punct(prev, ')') || punct(prev, ']'))) {
      const end = close(i);
      const args = topLevelArgs(tokens, i, end);
      if (args.length === 2 && allAdded(i, end + 1)) {
        const [a, b] = args as [[number, number], [number, number]];
        const first = [tokens[a[0]], tokens[a[1]]] as [Tok, Tok];
        const second = [tokens[b[0]], tokens[b[1]]] as [Tok, Tok];
        const gap = h.text.slice(first[1].end, second[0].start);
        edits.push({ operator: 'swap-arguments', start: first[0].start, end: second[1].end, text: `${slice(...second)}${gap}${slice(...first)}` });
      }
    }
    // Subscripts one off: `xs[i]` read as `xs[i + 1]` and `xs[i - 1]`.
    if (punct(t, '[') && isValue(prev) && !(prev?.kind === 'name' && NOT_CALLEES[language].has(prev.value))) {
      const end = close(i);
      const inner = tokens.slice(i + 1, end);
      const first = inner[0];
      const last = inner[inner.length - 1];
      if (first && last && allAdded(i, end + 1) && !inner.some((x) => punct(x, ':') || punct(x, ',')))
        for (const op of ['+', '-']) edits.push({ operator: 'index-off-by-one', start: first.start, end: last.end, text: `${slice(first, last)} ${op} 1` });
    }
    // A return of a neighbouring value: nothing instead of what the fix computed.
    if (t.kind === 'name' && t.value === 'return' && next && next.line === t.line && !punct(next, ';')) {
      let last = i + 1;
      while (tokens[last + 1] && tokens[last + 1]?.line === t.line && !punct(tokens[last + 1], ';')) last++;
      const empty = language === 'py' ? 'None' : 'undefined';
      const expression = slice(next, tokens[last] as Tok);
      if (expression !== empty && allAdded(i, last + 1))
        edits.push({ operator: 'return-value', start: next.start, end: (tokens[last] as Tok).end, text: empty });
    }
  });
  edits.push(...removableLines(h, tokens, language).map((drop): Edit => ({ operator: 'remove-statement', drop })));
  return edits;
}

function punctOrName(t: Tok | undefined, v: string): boolean {
  return t !== undefined && t.value === v && (t.kind === 'name' || t.kind === 'punct');
}

/** Index of the `:` that ends a Python condition starting at `from` (bracket depth 0, same line), or -1. */
function conditionEnd(tokens: Tok[], from: number, line: number): number {
  let depth = 0;
  for (let i = from; i < tokens.length && (tokens[i]?.line === line || depth > 0); i++) {
    const t = tokens[i] as Tok;
    if (t.kind !== 'punct') continue;
    if ('([{'.includes(t.value)) depth++;
    else if (')]}'.includes(t.value)) depth--;
    else if (t.value === ':' && depth === 0) return i;
  }
  return -1;
}

/** Token spans [first, last] of the top-level arguments of the call whose `(` is at `open`, `)` at `close`. */
function topLevelArgs(tokens: Tok[], open: number, close: number): Array<[number, number]> {
  const args: Array<[number, number]> = [];
  let start = open + 1;
  for (let i = open + 1; i <= close; i++) {
    const t = tokens[i] as Tok;
    if (t.kind === 'punct' && '([{'.includes(t.value)) {
      i = matchingBracket(tokens, i, 'punct') - 1;
      continue;
    }
    if (i === close || (t.kind === 'punct' && t.value === ',')) {
      if (i > start) args.push([start, i - 1]);
      start = i + 1;
    }
  }
  // A spread or keyword argument does not swap into a positional one.
  return args.some(([a]) => tokens[a]?.value === '...' || tokens[a]?.value === '*' || tokens[a]?.value === '**' || tokens[a + 1]?.value === '=') ? [] : args;
}

/**
 * Added lines that can go without breaking the syntax around them: a whole statement (its brackets
 * balanced on the line, a JS line ending in `;`, a Python line that opens no block and has a sibling
 * at its indentation), or a whole element of a list that spans lines (ending in `,`).
 */
function removableLines(h: HunkText, tokens: Tok[], language: Language): number[] {
  const byLine = new Map<number, Tok[]>();
  const open: string[] = [];
  /** The innermost bracket open where each line starts: an expression's `(`/`[`, a block's or literal's `{`, or none. */
  const enclosing = new Map<number, string | undefined>();
  for (const t of tokens) {
    if (!enclosing.has(t.line)) enclosing.set(t.line, open[open.length - 1]);
    byLine.set(t.line, [...(byLine.get(t.line) ?? []), t]);
    if (t.kind === 'punct' && '([{'.includes(t.value)) open.push(t.value);
    if (t.kind === 'punct' && ')]}'.includes(t.value)) open.pop();
  }
  const lines = h.text.split('\n');
  const indent = (k: number): number => (lines[k] ?? '').length - (lines[k] ?? '').trimStart().length;
  const blank = (k: number): boolean => (lines[k] ?? '').trim() === '' || !byLine.has(k + 1);
  const out: number[] = [];
  h.added.forEach((added, k) => {
    const toks = byLine.get(k + 1);
    if (!added || !toks || toks.length === 0) return;
    let d = 0;
    for (const t of toks) {
      if (t.kind === 'punct' && '([{'.includes(t.value)) d++;
      if (t.kind === 'punct' && ')]}'.includes(t.value) && --d < 0) return;
    }
    if (d !== 0) return;
    const last = toks[toks.length - 1] as Tok;
    const inside = enclosing.get(k + 1);
    const element = last.kind === 'punct' && last.value === ',';
    // In a JS block a line is a statement (`;`) or, in an object literal, an entry (`,`).
    if (language === 'js' && (inside === undefined || inside === '{')) {
      if ((last.kind === 'punct' && last.value === ';') || (inside === '{' && element)) out.push(k);
      return;
    }
    if (inside !== undefined) {
      if (element) out.push(k);
      return;
    }
    if (last.kind === 'punct' && (last.value === ':' || last.value === '\\')) return;
    // A sibling at the same indentation keeps the block non-empty.
    const sibling = (step: number): boolean => {
      for (let j = k + step; j >= 0 && j < lines.length; j += step) {
        if (blank(j)) continue;
        return indent(j) === indent(k) && !(step < 0 && (lines[j] ?? '').trimEnd().endsWith(':'));
      }
      return false;
    };
    if (sibling(-1) || sibling(1)) out.push(k);
  });
  return out;
}

function applyEdit(h: HunkText, edit: Edit): Array<string | null> | undefined {
  const lines = h.text.split('\n');
  if ('drop' in edit) return lines.map((l, k) => (k === edit.drop ? null : l));
  const changed = `${h.text.slice(0, edit.start)}${edit.text}${h.text.slice(edit.end)}`.split('\n');
  if (changed.length !== lines.length) return undefined;
  // Only added lines may change: a mutant of the fix, never of the code around it.
  if (changed.some((l, k) => l !== lines[k] && !h.added[k])) return undefined;
  return changed;
}

export interface MutantOptions {
  /** At most this many, drawn with `seed` when there are more. */
  max: number;
  seed: number;
}

/** The mutants of a fix (a `git apply` patch), sampled to `max` with `seed`. */
export function mutantsOf(patch: string, options: MutantOptions): MutantSet {
  const parsed: ParsedPatch = parsePatch(patch);
  const byPatch = new Map<string, Mutant>();
  let sameAsOracle = 0;
  const unsupportedFiles: string[] = [];
  for (const file of parsed.files) {
    const language = file.path === undefined ? undefined : languageOf(file.path);
    if (file.path === undefined) continue;
    if (!language) {
      if (file.hunks.some((hk) => hk.lines.some((l) => l.kind === '+'))) unsupportedFiles.push(file.path);
      continue;
    }
    for (const hunk of file.hunks) {
      const h = hunkText(hunk);
      for (const edit of editsOf(h, language)) {
        const side = applyEdit(h, edit);
        if (!side) continue;
        const k = side.findIndex((l, j) => l !== h.text.split('\n')[j]);
        if (k === -1) {
          sameAsOracle++;
          continue;
        }
        const mutantPatch = withNewSide(parsed, hunk, side);
        if (byPatch.has(mutantPatch)) continue;
        byPatch.set(mutantPatch, {
          id: createHash('sha256').update(mutantPatch).digest('hex').slice(0, 12),
          operator: edit.operator,
          file: file.path,
          line: hunk.newStart + k,
          before: h.text.split('\n')[k] ?? '',
          after: side[k] ?? null,
          patch: mutantPatch,
        });
      }
    }
  }
  const all = [...byPatch.values()];
  return { mutants: sample(all, options), candidates: all.length, sameAsOracle, unsupportedFiles };
}

/** `max` of `items` drawn with a seeded shuffle, kept in their original order. */
function sample<T>(items: T[], options: MutantOptions): T[] {
  if (items.length <= options.max) return items;
  const random = mulberry32(options.seed);
  const order = items.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order
    .slice(0, options.max)
    .sort((a, b) => a - b)
    .map((i) => items[i] as T);
}
