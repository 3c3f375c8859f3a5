import type { LyingHook } from './lying-hooks.js';
import { matching } from './bracket-spans.js';
import { tokenizePython, type PyToken } from './py-writes.js';

/** Comparisons: lying when they ignore the other operand or always answer the same. */
const PY_COMPARING = new Set(['__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__']);
/** Conversions and hashing: lying when they always answer the same or never look at the object. */
const PY_CONVERTING = new Set(['__hash__', '__bool__', '__index__', '__int__', '__float__']);
const PY_CONSTANT_NAMES = new Set(['True', 'False', 'None', 'not']);
const PY_CONSTANT_OPS = new Set(['-', '+', '(', ')', '~']);

const isOp = (t: PyToken | undefined, v: string): boolean => t?.kind === 'op' && t.value === v;
const isHook = (name: string): boolean => PY_COMPARING.has(name) || PY_CONVERTING.has(name);

interface PyFunction {
  params: string[];
  body: PyToken[];
  /** A lambda's body is the one returned value. */
  expression: boolean;
  start: number;
  end: number;
}

/**
 * Python: `def __eq__(self, other): …` (by the body's indentation), `__eq__ = lambda self, other: …`,
 * and `'__eq__': lambda …` in a namespace given to `type(…)`. Reads tokens (py-writes.ts's
 * tokenizer) and, for a `def`'s extent, the indentation of the lines those tokens start.
 */
export function pyLyingHooks(text: string): LyingHook[] {
  const tokens = tokenizePython(text);
  const lines = text.split('\n');
  const found: LyingHook[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t || (t.kind !== 'name' && t.kind !== 'string') || !isHook(t.value)) continue;
    let fn: PyFunction | undefined;
    if (t.kind === 'name' && tokens[i - 1]?.value === 'def' && tokens[i - 1]?.kind === 'name') fn = defAt(tokens, i, lines);
    else if ((isOp(tokens[i + 1], '=') || isOp(tokens[i + 1], ':')) && tokens[i + 2]?.value === 'lambda') fn = lambdaAt(tokens, i + 2);
    else if (isOp(tokens[i + 1], '=') || isOp(tokens[i + 1], ':') || isOp(tokens[i + 1], ',')) fn = namedDef(tokens, i + 2, lines);
    if (!fn) continue;
    const why = pyVerdict(t.value, fn);
    if (why) found.push({ line: t.line, start: Math.min(t.line, fn.start), end: Math.max(t.line, fn.end), hook: t.value, why });
  }
  return found;
}

function paramNames(tokens: PyToken[], from: number, to: number): string[] {
  const names: string[] = [];
  let expectName = true;
  for (let i = from; i < to; i++) {
    const t = tokens[i];
    if (isOp(t, ',')) expectName = true;
    else if (expectName && t?.kind === 'name') {
      names.push(t.value);
      expectName = false;
    } else if (!isOp(t, '*') && !isOp(t, '**') && !isOp(t, '/')) expectName = false;
  }
  return names;
}

const indentOf = (line: string | undefined): number => /^[ \t]*/.exec(line ?? '')?.[0].replace(/\t/g, '        ').length ?? 0;

function defAt(tokens: PyToken[], at: number, lines: string[]): PyFunction | undefined {
  const open = at + 1;
  if (!isOp(tokens[open], '(')) return undefined;
  const close = matching(tokens, open, 'op');
  const params = paramNames(tokens, open + 1, close - 1);
  let colon = close;
  while (colon < tokens.length && !isOp(tokens[colon], ':')) colon++;
  const header = tokens[colon];
  if (!header) return undefined;
  const defIndent = indentOf(lines[(tokens[at]?.line ?? 1) - 1]);
  const body: PyToken[] = [];
  let depth = 0;
  let previousLine = header.line;
  for (let i = colon + 1; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t) break;
    // The body ends at the first statement that starts at the def's indentation or less.
    if (depth === 0 && t.line !== previousLine && indentOf(lines[t.line - 1]) <= defIndent) break;
    if (t.kind === 'op' && '([{'.includes(t.value)) depth++;
    else if (t.kind === 'op' && ')]}'.includes(t.value)) depth = Math.max(0, depth - 1);
    previousLine = t.line;
    body.push(t);
  }
  return { params, body, expression: false, start: tokens[at]?.line ?? header.line, end: body[body.length - 1]?.line ?? header.line };
}

/** `__eq__ = _always` or `setattr(C, '__eq__', _always)`: the `def _always` of the same file, when there is one. */
function namedDef(tokens: PyToken[], at: number, lines: string[]): PyFunction | undefined {
  const ref = tokens[at];
  if (ref?.kind !== 'name' || isOp(tokens[at + 1], '.') || isOp(tokens[at + 1], '(')) return undefined;
  const def = tokens.findIndex((t, k) => t.kind === 'name' && t.value === ref.value && tokens[k - 1]?.value === 'def' && tokens[k - 1]?.kind === 'name');
  if (def >= 0) return defAt(tokens, def, lines);
  const lambda = tokens.findIndex((t, k) => t.kind === 'name' && t.value === ref.value && isOp(tokens[k + 1], '=') && tokens[k + 2]?.value === 'lambda');
  return lambda >= 0 ? lambdaAt(tokens, lambda + 2) : undefined;
}

function lambdaAt(tokens: PyToken[], at: number): PyFunction | undefined {
  let colon = at + 1;
  while (colon < tokens.length && !isOp(tokens[colon], ':')) colon++;
  const params = paramNames(tokens, at + 1, colon);
  const body: PyToken[] = [];
  const line = tokens[colon]?.line;
  for (let i = colon + 1; i < tokens.length;) {
    const t = tokens[i];
    if (!t || isOp(t, ',') || isOp(t, ')') || isOp(t, ']') || isOp(t, '}') || isOp(t, ';') || (t.line !== line && body.length > 0 && !isOp(t, '('))) break;
    if (t.kind === 'op' && '([{'.includes(t.value)) {
      const end = matching(tokens, i, 'op');
      body.push(...tokens.slice(i, end));
      i = end;
      continue;
    }
    body.push(t);
    i++;
  }
  return { params, body, expression: true, start: tokens[at]?.line ?? 1, end: body[body.length - 1]?.line ?? line ?? 1 };
}

function pyVerdict(hook: string, fn: PyFunction): string | undefined {
  const uses = (name: string | undefined): boolean =>
    name !== undefined && fn.body.some((t, k) => t.kind === 'name' && t.value === name && !isOp(fn.body[k - 1], '.'));
  const returned = fn.expression ? [fn.body] : returnedExpressions(fn.body);
  const answers = returned.filter((r) => !(r.length === 1 && r[0]?.value === 'NotImplemented'));
  const constant = answers.length > 0 && answers.every((r) => r.length > 0 && r.every(isPyConstant));
  const self = fn.params[0];
  // Only ever NotImplemented: Python falls back to its default comparison, which does not lie.
  if (returned.length > 0 && answers.length === 0) return undefined;
  if (PY_COMPARING.has(hook) && !uses(fn.params[1]) && !uses('args')) return 'ignores its argument';
  if (PY_CONVERTING.has(hook) && !uses(self)) return 'ignores self';
  return constant ? 'returns a constant' : undefined;
}

/** Every `return`'s expression, up to the end of its line at its own bracket depth or a `;`. */
function returnedExpressions(body: PyToken[]): PyToken[][] {
  const out: PyToken[][] = [];
  body.forEach((t, k) => {
    if (t.kind !== 'name' || t.value !== 'return') return;
    const expr: PyToken[] = [];
    let depth = 0;
    for (let j = k + 1; j < body.length; j++) {
      const x = body[j];
      if (!x || (depth === 0 && (x.line !== t.line || isOp(x, ';')))) break;
      if (x.kind === 'op' && '([{'.includes(x.value)) depth++;
      else if (x.kind === 'op' && ')]}'.includes(x.value)) depth--;
      expr.push(x);
    }
    out.push(expr.length > 0 ? expr : [{ kind: 'name', value: 'None', line: t.line, start: t.start, end: t.end }]);
  });
  return out;
}

function isPyConstant(t: PyToken): boolean {
  if (t.kind === 'number' || t.kind === 'string') return true;
  if (t.kind === 'name') return PY_CONSTANT_NAMES.has(t.value);
  return t.kind === 'op' && PY_CONSTANT_OPS.has(t.value);
}
