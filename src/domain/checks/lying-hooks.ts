import { matching } from './bracket-spans.js';
import { tokenizeJs, type JsToken } from './js-tokens.js';

/**
 * An equality or conversion hook that lies: it answers the same whatever it compares or whatever
 * object it belongs to, so `==`, `assert.equal` or `assert x == y` holds for a wrong value. The
 * finding spans the hook's definition (`start`..`end`), so a change to its body alone is seen too.
 */
export interface LyingHook {
  /** The line of the hook's name. */
  line: number;
  start: number;
  end: number;
  hook: string;
  /** `ignores its argument`, `returns a constant`, `ignores self`. */
  why: string;
}

/** Hooks that compare with an argument: lying when they ignore it or always answer the same. */
const JS_COMPARING = new Set(['equals', 'isEqual']);
/** Hooks that turn the object into a primitive: lying when they always answer the same constant. */
const JS_CONVERTING = new Set(['valueOf', 'toString', 'Symbol.toPrimitive']);
const JS_CONSTANT_NAMES = new Set(['true', 'false', 'null', 'undefined', 'NaN', 'Infinity', 'void']);
/** Operators that make no value of their own: an expression of these over constants and the hook's parameters is the same for every object. */
const JS_CONSTANT_PUNCTS = new Set(['-', '+', '!', '(', ')', '~', '===', '==', '!==', '!=', '?', ':', '&&', '||', '??']);

interface FunctionParts {
  params: string[];
  /** Token range of the body: a block's inside, or an arrow's expression. */
  body: [number, number];
  /** True for an arrow with an expression body: the body is the one returned value. */
  expression: boolean;
}

const isPunct = (t: JsToken | undefined, value: string): boolean => t?.kind === 'punct' && t.value === value;

/** JS/TS: `valueOf() {…}`, `[Symbol.toPrimitive](hint) {…}`, `equals: (o) => true`, `X.prototype.toString = function () {…}`, `'valueOf': …`. */
export function jsLyingHooks(text: string): LyingHook[] {
  const tokens = tokenizeJs(text);
  const found: LyingHook[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const named = hookAt(tokens, i);
    if (!named) continue;
    const { hook, next } = named;
    const fn = functionAfter(tokens, next, tokens[i - 1]);
    if (!fn) continue;
    const why = jsVerdict(tokens, hook, fn);
    const line = tokens[i]?.line ?? 1;
    const first = tokens[fn.body[0] - 1]?.line ?? line;
    const last = tokens[Math.max(fn.body[1] - 1, fn.body[0])]?.line ?? line;
    if (why) found.push({ line, start: Math.min(line, first), end: Math.max(line, last), hook, why });
  }
  return found;
}

/** The hook named at `i` (a name, a string key, or `[Symbol.toPrimitive]`) and the index after its name. */
function hookAt(tokens: JsToken[], i: number): { hook: string; next: number } | undefined {
  const t = tokens[i];
  if (!t) return undefined;
  if (
    isPunct(t, '[') &&
    tokens[i + 1]?.value === 'Symbol' &&
    isPunct(tokens[i + 2], '.') &&
    tokens[i + 3]?.value === 'toPrimitive' &&
    isPunct(tokens[i + 4], ']')
  ) {
    return { hook: 'Symbol.toPrimitive', next: i + 5 };
  }
  if (isPunct(t, '[') && tokens[i + 1]?.kind === 'string' && isPunct(tokens[i + 2], ']')) {
    const name = tokens[i + 1]?.value ?? '';
    return JS_COMPARING.has(name) || JS_CONVERTING.has(name) ? { hook: name, next: i + 3 } : undefined;
  }
  if ((t.kind === 'name' || t.kind === 'string') && (JS_COMPARING.has(t.value) || JS_CONVERTING.has(t.value))) {
    // A call (`x.valueOf()`) or a read is not a definition; a member key, a method or an assignment is.
    if (isPunct(tokens[i - 1], '[')) return undefined;
    return { hook: t.value, next: i + 1 };
  }
  return undefined;
}

/** The function defined right after a hook's name: a method, `: function…`, `: (…) =>`, `= …`. */
function functionAfter(tokens: JsToken[], at: number, before: JsToken | undefined): FunctionParts | undefined {
  const t = tokens[at];
  const afterDot = isPunct(before, '.') || isPunct(before, '?.');
  if (isPunct(t, '(') && !afterDot) {
    const close = matching(tokens, at, 'punct');
    // A method's body follows its parameters (after a return type in TypeScript); a call's does not.
    let open = close;
    if (isPunct(tokens[close], ':')) while (open < tokens.length && !isPunct(tokens[open], '{') && !isPunct(tokens[open], ';')) open++;
    if (!isPunct(tokens[open], '{')) return undefined;
    return { params: paramNames(tokens, at, close), body: [open + 1, matching(tokens, open, 'punct') - 1], expression: false };
  }
  // `key: value`, `x.valueOf = value`, and a class field `valueOf = () => …`.
  if ((isPunct(t, ':') && !afterDot) || isPunct(t, '=')) return functionValue(tokens, at + 1) ?? namedFunction(tokens, at + 1);
  return undefined;
}

/** `valueOf: always` or `X.prototype.valueOf = always`: `function always…` or `always = …` of the same file. */
function namedFunction(tokens: JsToken[], at: number): FunctionParts | undefined {
  const ref = tokens[at];
  const after = tokens[at + 1];
  if (ref?.kind !== 'name' || (after !== undefined && !isPunct(after, ',') && !isPunct(after, ';') && !isPunct(after, '}') && after.line === ref.line))
    return undefined;
  for (let k = 0; k < tokens.length; k++) {
    if (tokens[k]?.kind !== 'name' || tokens[k]?.value !== ref.value || k === at) continue;
    if (tokens[k - 1]?.value === 'function') return functionValue(tokens, k - 1);
    if (isPunct(tokens[k + 1], '=') && !isPunct(tokens[k - 1], '.')) {
      const value = functionValue(tokens, k + 2);
      if (value) return value;
    }
  }
  return undefined;
}

/** `function (…) {…}`, `async (…) => …`, `x => …` starting at `at`. */
function functionValue(tokens: JsToken[], at: number): FunctionParts | undefined {
  let i = at;
  if (tokens[i]?.value === 'async' && tokens[i]?.kind === 'name') i++;
  if (tokens[i]?.value === 'function' && tokens[i]?.kind === 'name') {
    i++;
    if (isPunct(tokens[i], '*')) i++;
    if (tokens[i]?.kind === 'name') i++;
    if (!isPunct(tokens[i], '(')) return undefined;
    const close = matching(tokens, i, 'punct');
    if (!isPunct(tokens[close], '{')) return undefined;
    return { params: paramNames(tokens, i, close), body: [close + 1, matching(tokens, close, 'punct') - 1], expression: false };
  }
  let params: string[];
  let arrow: number;
  if (isPunct(tokens[i], '(')) {
    const close = matching(tokens, i, 'punct');
    params = paramNames(tokens, i, close);
    arrow = close;
    if (isPunct(tokens[arrow], ':')) while (arrow < tokens.length && !isPunct(tokens[arrow], '=>') && !isPunct(tokens[arrow], ';')) arrow++;
  } else if (tokens[i]?.kind === 'name') {
    params = [tokens[i]?.value ?? ''];
    arrow = i + 1;
  } else return undefined;
  if (!isPunct(tokens[arrow], '=>')) return undefined;
  const start = arrow + 1;
  if (isPunct(tokens[start], '{')) return { params, body: [start + 1, matching(tokens, start, 'punct') - 1], expression: false };
  return { params, body: [start, expressionEnd(tokens, start)], expression: true };
}

/** The first name of each top-level parameter between `open` and `close`, TypeScript's `this` parameter left out. */
function paramNames(tokens: JsToken[], open: number, close: number): string[] {
  const names: string[] = [];
  let expectName = true;
  for (let i = open + 1; i < close - 1; i++) {
    const t = tokens[i];
    if (isPunct(t, '(') || isPunct(t, '[') || isPunct(t, '{')) {
      // A destructured parameter: its names are all uses of the argument.
      if (expectName)
        names.push(
          ...tokens
            .slice(i, matching(tokens, i, 'punct'))
            .filter((x) => x.kind === 'name')
            .map((x) => x.value),
        );
      i = matching(tokens, i, 'punct') - 1;
      expectName = false;
      continue;
    }
    if (isPunct(t, ',')) expectName = true;
    else if (expectName && t?.kind === 'name' && t.value !== 'this') {
      names.push(t.value);
      expectName = false;
    } else if (!isPunct(t, '...')) expectName = false;
  }
  return names;
}

/** The end of an arrow's expression body: a `,`, `;` or closing bracket at its own depth, or the end. */
function expressionEnd(tokens: JsToken[], start: number): number {
  for (let i = start; i < tokens.length;) {
    const t = tokens[i];
    if (isPunct(t, '(') || isPunct(t, '[') || isPunct(t, '{')) {
      i = matching(tokens, i, 'punct');
      continue;
    }
    if (isPunct(t, ',') || isPunct(t, ';') || isPunct(t, ')') || isPunct(t, ']') || isPunct(t, '}')) return i;
    i++;
  }
  return tokens.length;
}

function jsVerdict(tokens: JsToken[], hook: string, fn: FunctionParts): string | undefined {
  const body = tokens.slice(fn.body[0], fn.body[1]);
  const returned = fn.expression ? [body] : returnedExpressions(body);
  const params = new Set(fn.params);
  const constant = returned.length > 0 && returned.every((r) => r.length > 0 && r.every((t) => isJsConstant(t) || (t.kind === 'name' && params.has(t.value))));
  if (JS_COMPARING.has(hook)) {
    const uses = (name: string): boolean => body.some((t, k) => t.kind === 'name' && t.value === name && !isPunct(body[k - 1], '.'));
    const argument = fn.params[0];
    if (!body.some((t) => t.kind === 'name' && t.value === 'arguments') && (argument === undefined || !uses(argument))) return 'ignores its argument';
  }
  return constant ? 'returns a constant' : undefined;
}

/** The expression of every `return` in a block, up to `;`, the block's end or the next line. */
function returnedExpressions(body: JsToken[]): JsToken[][] {
  const out: JsToken[][] = [];
  body.forEach((t, k) => {
    if (t.kind !== 'name' || t.value !== 'return' || isPunct(body[k - 1], '.')) return;
    const expr: JsToken[] = [];
    for (let j = k + 1; j < body.length; j++) {
      const x = body[j];
      if (!x || isPunct(x, ';') || isPunct(x, '}') || (x.line !== t.line && expr.length === 0 && !isPunct(x, '('))) break;
      expr.push(x);
    }
    // A bare `return` gives undefined: a constant all the same.
    out.push(expr.length > 0 ? expr : [{ kind: 'name', value: 'undefined', line: t.line, start: t.start, end: t.end }]);
  });
  return out;
}

function isJsConstant(t: JsToken): boolean {
  if (t.kind === 'number' || t.kind === 'string') return true;
  if (t.kind === 'template') return true;
  if (t.kind === 'name') return JS_CONSTANT_NAMES.has(t.value);
  return t.kind === 'punct' && JS_CONSTANT_PUNCTS.has(t.value);
}
