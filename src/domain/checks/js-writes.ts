import { tokenizeJs, type JsToken } from './js-tokens.js';
import { argsOf as argsSpans, matching as matchingSpan, openerOf as openerSpan } from './bracket-spans.js';

/**
 * Writes to the assertion library or the test runner, by what they write to rather than how they
 * are spelled: `assert.x = …`, `assert[name] = …`, `delete assert.x`, `Object.assign(assert, …)`,
 * `Object.defineProperty`, `Reflect.set`/`defineProperty`/`setPrototypeOf`, spies that replace a
 * member (`vi.spyOn(assert, …)`), `expect.extend(…)`, and all of these through an alias of the
 * module (`const a = require('node:assert'); a[k] = …`, `import * as A from 'assert'`,
 * `const { strict } = assert`, `createRequire(…)('assert')`) or of `Object`/`Reflect` and their
 * methods (`const { assign } = Object`). A write on `globalThis.expect` (jest's and vitest's global)
 * counts too. It reads tokens, so comments and strings never trip it; a name hidden behind a
 * computed string (`require(['as', 'sert'].join(''))`) is not seen (docs/grading.md).
 */
export interface RunnerWrite {
  line: number;
  /** The form, for evidence: `assignment`, `delete`, `Object.assign`, `vi.spyOn`, … */
  via: string;
}

/** Module specifiers whose exports the tests assert with or run under. */
const MODULES = new Set([
  'assert',
  'assert/strict',
  'chai',
  'expect',
  'should',
  'power-assert',
  'uvu/assert',
  '@jest/globals',
  '@jest/expect',
  'jest',
  'vitest',
  '@vitest/expect',
  'mocha',
  'tap',
  'ava',
  'node:test',
  'test',
]);

function isModule(specifier: string): boolean {
  const s = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  return MODULES.has(s) || MODULES.has(specifier);
}

/** Globals the runners put in scope (and tests use by name). */
const RUNNER_GLOBALS = new Set([
  'assert',
  'expect',
  'chai',
  'should',
  'vi',
  'jest',
  'mocha',
  'Mocha',
  'jasmine',
  'describe',
  'it',
  'test',
  'beforeEach',
  'afterEach',
  'beforeAll',
  'afterAll',
]);
/** Global names that are the assertion or runner objects themselves when nothing else binds them. */
const TRACKED_GLOBALS = ['assert', 'expect', 'chai', 'should', 'vi', 'jest', 'jasmine', 'Mocha'];
const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window', 'self']);

/** Calls that write to their first argument (`Object.*`, `Reflect.*`) or replace one of its members (spies). */
const WRITE_FUNCTIONS = new Set([
  'Object.assign',
  'Object.defineProperty',
  'Object.defineProperties',
  'Object.setPrototypeOf',
  'Object.prototype.__defineGetter__',
  'Object.prototype.__defineSetter__',
  'Reflect.set',
  'Reflect.defineProperty',
  'Reflect.setPrototypeOf',
  'Reflect.deleteProperty',
  'vi.spyOn',
  'vi.stubGlobal',
  'jest.spyOn',
  'jest.replaceProperty',
  'mock.method',
  'mock.getter',
  'mock.setter',
  'mock.property',
  'sinon.stub',
  'sinon.spy',
  'sinon.replace',
  'sinon.replaceGetter',
  'sinon.replaceSetter',
  'td.replace',
]);
/** Methods of the assertion objects that change them. */
const MUTATING_METHODS = new Set([
  'extend',
  'use',
  'addMethod',
  'addProperty',
  'addChainableMethod',
  'overwriteMethod',
  'overwriteProperty',
  'overwriteChainableMethod',
  '__defineGetter__',
  '__defineSetter__',
]);
const ASSIGN = new Set(['=', '+=', '-=', '*=', '/=', '%=', '**=', '<<=', '>>=', '>>>=', '&=', '|=', '^=', '&&=', '||=', '??=']);

type Op = { kind: 'member'; name?: string } | { kind: 'call'; args: Array<[number, number]> };

interface Postfix {
  /** The dotted path while every step is a plain member (`Object.assign`), with aliases resolved. */
  path?: string;
  /** Ops after the point where the expression became the assertion/runner object; undefined when it never did. */
  trackedOps?: Op[];
  /** Calls of a plain dotted path before that point: `Object.assign(…)` has path `Object.assign` and its `(` at `open`. */
  calls: Array<{ path: string; open: number }>;
  end: number;
}

interface Scope {
  tracked: Set<string>;
  /** Alias → canonical dotted path, for `Object`, `Reflect` and their write functions. */
  aliases: Map<string, string>;
}

const val = (t: JsToken | undefined): string | undefined => t?.value;
const isPunct = (t: JsToken | undefined, v: string): boolean => t?.kind === 'punct' && t.value === v;

const matching = (tokens: JsToken[], open: number): number => matchingSpan(tokens, open, 'punct');
/** Top-level argument spans of the call whose `(` is at `open`. */
const argsOf = (tokens: JsToken[], open: number, close: number): Array<[number, number]> => argsSpans(tokens, open, close, 'punct');

function isModuleString(t: JsToken | undefined): boolean {
  return (t?.kind === 'string' || t?.kind === 'template') && isModule(t.value);
}

/** Parses the postfix expression that starts at `i`: a primary, then `.x`, `?.x`, `[…]`, `(…)`. */
function postfix(tokens: JsToken[], i: number, scope: Scope): Postfix | undefined {
  let at = i;
  // Parentheses around the primary, peeled without recursion: `((assert))[k] = …`.
  const opens: number[] = [];
  for (;;) {
    while (val(tokens[at]) === 'await' || val(tokens[at]) === 'new') at++;
    if (!isPunct(tokens[at], '(')) break;
    opens.push(at);
    at++;
  }
  const first = tokens[at];
  if (first?.kind !== 'name') return undefined;
  let path: string | undefined = scope.aliases.get(first.value) ?? first.value;
  let tracked: Op[] | undefined = scope.tracked.has(first.value) && !isPunct(tokens[at - 1], '.') && !isPunct(tokens[at - 1], '?.') ? [] : undefined;
  const calls: Postfix['calls'] = [];
  at++;
  for (;;) {
    walk();
    const open = opens.pop();
    if (open === undefined) break;
    const close = matching(tokens, open);
    // `(assert as any)`, `(assert!)`: TypeScript's casts leave the object as it is.
    if (at !== close - 1 && val(tokens[at]) !== 'as' && !isPunct(tokens[at], '!')) return undefined;
    at = close;
  }
  return { ...(path !== undefined ? { path } : {}), ...(tracked !== undefined ? { trackedOps: tracked } : {}), calls, end: at };

  function walk(): void {
    while (at < tokens.length) {
      const t = tokens[at];
      // TypeScript's non-null `assert!.x`.
      if (isPunct(t, '!') && (isPunct(tokens[at + 1], '.') || isPunct(tokens[at + 1], '['))) {
        at++;
        continue;
      }
      if (isPunct(t, '.') || isPunct(t, '?.')) {
        const next = tokens[at + 1];
        if (next?.kind === 'name') {
          step({ kind: 'member', name: next.value });
          at += 2;
          continue;
        }
        if (isPunct(t, '?.') && (isPunct(next, '[') || isPunct(next, '('))) {
          at++;
          continue;
        }
        break;
      }
      if (isPunct(t, '[')) {
        const close = matching(tokens, at);
        const inner = tokens[at + 1];
        const literal = close === at + 3 && (inner?.kind === 'string' || inner?.kind === 'template') ? inner.value : undefined;
        step({ kind: 'member', ...(literal !== undefined ? { name: literal } : {}) });
        at = close;
        continue;
      }
      if (isPunct(t, '(')) {
        const close = matching(tokens, at);
        const args = argsOf(tokens, at, close);
        if (path !== undefined) calls.push({ path, open: at });
        // `require('assert')`, `import('node:assert')`, `createRequire(url)('assert')`: the result is the module.
        if (tracked === undefined && args.length === 1 && args[0] && args[0][1] - args[0][0] === 1 && isModuleString(tokens[args[0][0]])) {
          tracked = [];
          path = undefined;
        } else step({ kind: 'call', args });
        at = close;
        continue;
      }
      break;
    }
  }

  function step(op: Op): void {
    const before = path;
    path = op.kind === 'member' && path !== undefined && op.name !== undefined ? (scope.aliases.get(`${path}.${op.name}`) ?? `${path}.${op.name}`) : undefined;
    if (tracked !== undefined) tracked.push(op);
    // `globalThis.expect`: the runner's global object.
    else if (op.kind === 'member' && before !== undefined && op.name !== undefined && GLOBAL_OBJECTS.has(before) && RUNNER_GLOBALS.has(op.name)) tracked = [op];
  }
}

/** The argument at span `[s, e)` is the assertion/runner object or a member of it (not a call's result). */
function isTrackedArg(tokens: JsToken[], span: [number, number] | undefined, scope: Scope): boolean {
  if (!span) return false;
  const p = postfix(tokens, span[0], scope);
  return p !== undefined && p.end === span[1] && p.trackedOps !== undefined && p.trackedOps.every((o) => o.kind === 'member');
}

/** Not a property name (`x.assert`): anything else may start the expression a write begins with. */
function startsExpression(prev: JsToken | undefined): boolean {
  return !isPunct(prev, '.') && !isPunct(prev, '?.');
}

function collectBindings(tokens: JsToken[], scope: Scope): boolean {
  let grew = false;
  const track = (name: string | undefined): void => {
    if (name !== undefined && !scope.tracked.has(name)) {
      scope.tracked.add(name);
      grew = true;
    }
  };
  const alias = (name: string | undefined, path: string): void => {
    if (name !== undefined && scope.aliases.get(name) !== path) {
      scope.aliases.set(name, path);
      grew = true;
    }
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    // import X, * as Y, { a as b } from 'assert'   |   export … from is not a binding
    if (t?.kind === 'name' && t.value === 'import' && !isPunct(tokens[i + 1], '(') && !isPunct(tokens[i + 1], '.')) {
      // Binding names: every name but `as`, `type` and a name that `as` renames.
      let j = i + 1;
      const names: string[] = [];
      for (; j < tokens.length; j++) {
        const tok = tokens[j];
        if (!tok || tok.kind === 'string' || val(tok) === 'from' || isPunct(tok, ';') || isPunct(tok, '=')) break;
        if (tok.kind === 'name' && !['as', 'type', 'typeof'].includes(tok.value) && val(tokens[j + 1]) !== 'as') names.push(tok.value);
      }
      const spec = val(tokens[j]) === 'from' ? tokens[j + 1] : tokens[j];
      if (isModuleString(spec)) names.forEach(track);
      continue;
    }
    // for (const m of [assert, assert.strict])
    if (val(t) === 'of' && tokens[i - 1]?.kind === 'name' && isPunct(tokens[i + 1], '[')) {
      const close = matching(tokens, i + 1);
      if (argsOf(tokens, i + 1, close).some((span) => isTrackedArg(tokens, span, scope))) track(tokens[i - 1]?.value);
      continue;
    }
    if (t?.kind !== 'punct' || t.value !== '=') continue;
    const value = postfix(tokens, i + 1, scope);
    if (!value) continue;
    const prev = tokens[i - 1];
    const isTracked = value.trackedOps !== undefined && value.trackedOps.every((o) => o.kind === 'member');
    if (prev?.kind === 'name' && !isPunct(tokens[i - 2], '.') && !isPunct(tokens[i - 2], '?.')) {
      // const a = require('assert')   |   a = assert.strict   |   const O = Object   |   const d = Object.defineProperty
      if (isTracked) track(prev.value);
      else if (value.path !== undefined && isWriteRelated(value.path)) alias(prev.value, value.path);
    } else if (isPunct(prev, '}') || isPunct(prev, ']')) {
      // const { strict: a, ok } = assert   |   const { assign } = Object
      const open = openerOf(tokens, i - 1);
      if (open === undefined) continue;
      for (let j = open + 1; j < i - 1; j++) {
        const tok = tokens[j];
        if (tok?.kind !== 'name' || isPunct(tokens[j + 1], ':') || isPunct(tokens[j - 1], '=')) continue;
        const key = isPunct(tokens[j - 1], ':') ? val(tokens[j - 2]) : tok.value;
        if (isTracked) track(tok.value);
        else if (value.path !== undefined && key !== undefined && WRITE_FUNCTIONS.has(`${value.path}.${key}`)) alias(tok.value, `${value.path}.${key}`);
      }
    }
  }
  return grew;
}

function isWriteRelated(path: string): boolean {
  return path === 'Object' || path === 'Reflect' || WRITE_FUNCTIONS.has(path);
}

/** The `{` or `[` that the `}` or `]` at `close` closes. */
const openerOf = (tokens: JsToken[], close: number): number | undefined => openerSpan(tokens, close, 'punct');

export function jsRunnerWrites(text: string): RunnerWrite[] {
  const tokens = tokenizeJs(text);
  const scope: Scope = { tracked: new Set(TRACKED_GLOBALS), aliases: new Map() };
  for (let round = 0; round < 6 && collectBindings(tokens, scope); round++);
  const writes: RunnerWrite[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    // A parenthesised expression is parsed from its outermost parenthesis only.
    if (!t || !startsExpression(tokens[i - 1]) || (t.kind !== 'name' && !isPunct(t, '(')) || (isPunct(t, '(') && isPunct(tokens[i - 1], '('))) continue;
    const p = postfix(tokens, i, scope);
    if (!p) continue;
    const ops = p.trackedOps;
    const last = ops?.[ops.length - 1];
    const next = tokens[p.end];
    if (ops && last?.kind === 'member') {
      if (next?.kind === 'punct' && (ASSIGN.has(next.value) || next.value === '++' || next.value === '--')) writes.push({ line: t.line, via: 'assignment' });
      else if (val(tokens[i - 1]) === 'delete') writes.push({ line: t.line, via: 'delete' });
    }
    if (ops && last?.kind === 'call' && ops.length >= 2) {
      const method = ops[ops.length - 2];
      if (method?.kind === 'member' && method.name !== undefined && MUTATING_METHODS.has(method.name)) writes.push({ line: t.line, via: `.${method.name}(…)` });
    }
    // Object.assign(assert, …), Reflect.set(assert, …), fn.call(null, assert, …), vi.spyOn(expect, …)
    for (const call of p.calls) {
      const via = writeCall(tokens, call, scope);
      if (via) writes.push({ line: t.line, via });
    }
  }
  // `with (assert) { equal = … }` assigns to its members by bare name.
  for (let i = 0; i < tokens.length; i++) {
    if (val(tokens[i]) === 'with' && tokens[i]?.kind === 'name' && isPunct(tokens[i + 1], '(')) {
      const close = matching(tokens, i + 1);
      if (isTrackedArg(tokens, [i + 2, close - 1], scope)) writes.push({ line: tokens[i]?.line ?? 1, via: 'with' });
    }
  }
  return dedupe(writes);
}

function writeCall(tokens: JsToken[], call: { path: string; open: number }, scope: Scope): string | undefined {
  let fn = call.path;
  const spread = fn.endsWith('.apply');
  const skip = spread || fn.endsWith('.call') ? 1 : 0;
  if (skip === 1) fn = fn.slice(0, fn.lastIndexOf('.'));
  if (!WRITE_FUNCTIONS.has(fn)) return undefined;
  let args = argsOf(tokens, call.open, matching(tokens, call.open));
  if (spread) {
    const list = args[1];
    if (!list || !isPunct(tokens[list[0]], '[')) return undefined;
    args = [[0, 0], ...argsOf(tokens, list[0], matching(tokens, list[0]))];
  }
  const target = args[skip];
  const key = args[skip + 1] ? tokens[args[skip + 1]?.[0] ?? 0] : undefined;
  // Object.defineProperty(globalThis, 'expect', …)
  const onGlobal =
    target !== undefined &&
    target[1] - target[0] === 1 &&
    GLOBAL_OBJECTS.has(val(tokens[target[0]]) ?? '') &&
    key?.kind === 'string' &&
    RUNNER_GLOBALS.has(key.value);
  return isTrackedArg(tokens, target, scope) || onGlobal ? fn : undefined;
}

function dedupe(writes: RunnerWrite[]): RunnerWrite[] {
  const seen = new Set<string>();
  return writes.filter((w) => {
    const key = `${w.line}:${w.via}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
