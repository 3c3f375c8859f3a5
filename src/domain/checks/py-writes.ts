import type { RunnerWrite } from './js-writes.js';
import { argsOf as argsSpans, matching as matchingSpan } from './bracket-spans.js';

/**
 * Writes to unittest's and pytest's internals in Python code under test, by what they write to:
 * `unittest.TestCase.assertEqual = …`, `setattr(unittest.TestCase, …)`, `delattr`,
 * `object.__setattr__`, `vars(TestCase)[k] = …`, `TestCase.__dict__…`, `pytest.approx = …`,
 * `monkeypatch.setattr(unittest.TestCase, …)`, `mock.patch('unittest.TestCase.assertEqual')`,
 * `patch.object(…)`, through any alias (`import unittest as u`, `from unittest import TestCase as T`,
 * `importlib.import_module('unittest')`, `sys.modules['pytest']`, `X = unittest.TestCase`).
 * A small tokenizer (comments and strings are not code; f-string fields are) feeds the analysis.
 */

export interface PyToken {
  kind: 'name' | 'string' | 'number' | 'op';
  value: string;
  line: number;
  /** Offsets of the token's source text in the text first given: `text.slice(start, end)`. */
  start: number;
  end: number;
}

const MODULES = ['unittest', 'pytest', '_pytest', 'doctest', 'pluggy'];
/** What `from unittest import *` / `from pytest import *` bring in that tests assert or run with. */
const STAR_NAMES = [
  'TestCase',
  'TestResult',
  'TextTestResult',
  'TextTestRunner',
  'TestSuite',
  'TestLoader',
  'approx',
  'raises',
  'fail',
  'skip',
  'xfail',
  'warns',
  'exit',
  'mark',
];

const isTrackedModule = (name: string): boolean => MODULES.some((m) => name === m || name.startsWith(`${m}.`));

const SPACES = /[ \t]+/y;
const NAME_REST = /[\w\u0080-\uffff]*/y;
const OPS = [
  '**=',
  '//=',
  '>>=',
  '<<=',
  '...',
  '->',
  ':=',
  '==',
  '!=',
  '<=',
  '>=',
  '**',
  '//',
  '<<',
  '>>',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '@=',
];
const AUGMENTED = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**=', '//=', '>>=', '<<=', '@=']);

export function tokenizePython(text: string, lineBase = 1, tokens: PyToken[] = [], offset = 0): PyToken[] {
  let i = 0;
  let line = lineBase;
  while (i < text.length) {
    const c = text.charAt(i);
    // Numbered as git numbers them (by \n), so a finding lands on the patch's line.
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t') {
      SPACES.lastIndex = i;
      SPACES.exec(text);
      i = SPACES.lastIndex;
      continue;
    }
    if (/\s/.test(c) || c === '\\') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < text.length && text.charAt(i) !== '\n' && text.charAt(i) !== '\r') i++;
      continue;
    }
    const prefix = c === '"' || c === "'" || /[rRbBuUfF]/.test(c) ? /^([rRbBuUfF]{0,2})(['"])/.exec(text.slice(i, i + 4)) : null;
    if (prefix && (prefix[1] === '' || /^[rbuf]{1,2}$/i.test(prefix[1] ?? ''))) {
      const flags = (prefix[1] ?? '').toLowerCase();
      const quote = prefix[2] ?? '"';
      const start = i + (prefix[1] ?? '').length;
      const triple = text.startsWith(quote.repeat(3), start);
      const delim = triple ? quote.repeat(3) : quote;
      let j = start + delim.length;
      let value = '';
      while (j < text.length && !text.startsWith(delim, j)) {
        const ch = text.charAt(j);
        if (!triple && (ch === '\n' || ch === '\r')) break;
        if (ch === '\\' && !flags.includes('r')) {
          const e = text.charAt(j + 1);
          if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(j + 2, j + 4))) {
            value += String.fromCharCode(Number.parseInt(text.slice(j + 2, j + 4), 16));
            j += 4;
            continue;
          }
          if ((e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) || (e === 'U' && /^[0-9a-fA-F]{8}$/.test(text.slice(j + 2, j + 10)))) {
            const n = e === 'u' ? 4 : 8;
            value += String.fromCodePoint(Math.min(0x10ffff, Number.parseInt(text.slice(j + 2, j + 2 + n), 16)));
            j += 2 + n;
            continue;
          }
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
          continue;
        }
        value += ch;
        j++;
      }
      const body = text.slice(start + delim.length, j);
      tokens.push({ kind: 'string', value, line, start: offset + i, end: offset + Math.min(text.length, j + delim.length) });
      // An f-string's fields are code.
      const bodyAt = offset + start + delim.length;
      if (flags.includes('f')) for (const field of body.matchAll(/\{([^{}]*)\}/g)) tokenizePython(field[1] ?? '', line, tokens, bodyAt + field.index + 1);
      for (const ch of body) if (ch === '\n') line++;
      i = Math.min(text.length, j + delim.length);
      continue;
    }
    if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      NAME_REST.lastIndex = i + 1;
      NAME_REST.exec(text);
      const j = Math.max(i + 1, NAME_REST.lastIndex);
      // Python reads identifiers in NFKC: `ｕnittest` is `unittest`.
      tokens.push({ kind: 'name', value: text.slice(i, j).normalize('NFKC'), line, start: offset + i, end: offset + j });
      i = j;
      continue;
    }
    if (/\d/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[\w.]/.test(text.charAt(j))) j++;
      tokens.push({ kind: 'number', value: text.slice(i, j), line, start: offset + i, end: offset + j });
      i = j;
      continue;
    }
    const op = OPS.find((o) => text.startsWith(o, i)) ?? c;
    tokens.push({ kind: 'op', value: op, line, start: offset + i, end: offset + i + op.length });
    i += op.length;
  }
  return tokens;
}

const isOp = (t: PyToken | undefined, v: string): boolean => t?.kind === 'op' && t.value === v;

const matching = (tokens: PyToken[], open: number): number => matchingSpan(tokens, open, 'op');
/** Top-level argument spans of the call whose `(` is at `open`. */
const argsOf = (tokens: PyToken[], open: number, close: number): Array<[number, number]> => argsSpans(tokens, open, close, 'op');

type Op = { kind: 'attr'; name: string } | { kind: 'item' } | { kind: 'call'; open: number; close: number };

interface Postfix {
  path?: string;
  tracked?: Op[];
  /** The object's namespace itself (`vars(X)`, `X.__dict__`): a mutating method on it writes. */
  namespace: boolean;
  calls: Array<{ path: string; open: number; close: number }>;
  end: number;
}

const NAMESPACE_MUTATORS = new Set(['update', '__setitem__', 'setdefault', 'pop', 'popitem', 'clear', '__delitem__']);

function postfix(tokens: PyToken[], i: number, tracked: Set<string>, depth = 0): Postfix | undefined {
  const first = tokens[i];
  if (depth > 16) return undefined;
  if (first?.kind !== 'name' || isOp(tokens[i - 1], '.')) return undefined;
  let path: string | undefined = first.value;
  let ops: Op[] | undefined = tracked.has(first.value) ? [] : undefined;
  let namespace = false;
  const calls: Postfix['calls'] = [];
  let at = i + 1;
  while (at < tokens.length) {
    const t = tokens[at];
    if (isOp(t, '.') && tokens[at + 1]?.kind === 'name') {
      const name = tokens[at + 1]?.value ?? '';
      if (ops) {
        ops.push({ kind: 'attr', name });
        if (name === '__dict__') namespace = true;
      }
      path = path !== undefined ? `${path}.${name}` : undefined;
      at += 2;
      continue;
    }
    if (isOp(t, '[')) {
      const close = matching(tokens, at);
      const key = tokens[at + 1];
      // sys.modules['unittest']
      if (!ops && path === 'sys.modules' && close === at + 3 && key?.kind === 'string' && isTrackedModule(key.value)) ops = [];
      else ops?.push({ kind: 'item' });
      path = undefined;
      at = close;
      continue;
    }
    if (isOp(t, '(')) {
      const close = matching(tokens, at);
      const args = argsOf(tokens, at, close);
      const arg0 = args[0] ? tokens[args[0][0]] : undefined;
      const single = args.length === 1 && args[0] !== undefined && args[0][1] - args[0][0] === 1;
      if (path !== undefined) calls.push({ path, open: at, close });
      const last = path?.split('.').pop();
      if (
        !ops &&
        single &&
        arg0?.kind === 'string' &&
        isTrackedModule(arg0.value) &&
        (last === 'import_module' || last === '__import__' || path === 'sys.modules.get')
      ) {
        ops = [];
      } else if (!ops && (path === 'vars' || path === 'getattr') && isTrackedArg(tokens, args[0], tracked, depth + 1)) {
        // vars(TestCase), getattr(unittest, 'TestCase'): the same object, or its namespace.
        ops = [];
        namespace = path === 'vars';
      } else if (ops) ops.push({ kind: 'call', open: at, close });
      path = undefined;
      at = close;
      continue;
    }
    break;
  }
  return { ...(path !== undefined ? { path } : {}), ...(ops ? { tracked: ops } : {}), namespace, calls, end: at };
}

function isTrackedArg(tokens: PyToken[], span: [number, number] | undefined, tracked: Set<string>, depth = 0): boolean {
  if (!span) return false;
  const first = tokens[span[0]];
  // 'unittest.TestCase.assertEqual' as monkeypatch.setattr and mock.patch take it.
  if (first?.kind === 'string' && span[1] - span[0] === 1) return isTrackedModule(first.value);
  const p = postfix(tokens, span[0], tracked, depth);
  return p !== undefined && p.end === span[1] && p.tracked !== undefined && p.tracked.every((o) => o.kind !== 'call');
}

/** Calls that write to (or replace a member of) their first argument. */
const WRITE_CALLS =
  /^(?:setattr|delattr|object\.__setattr__|object\.__delattr__|type\.__setattr__|type\.__delattr__|(?:\w+\.)*(?:setattr|delattr|setitem|delitem|patch|patch\.object|patch\.multiple|patch\.dict))$/;

function collectBindings(tokens: PyToken[], tracked: Set<string>): boolean {
  const before = tracked.size;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t?.kind === 'name' && t.value === 'import' && !isOp(tokens[i - 1], '.')) {
      const from = findFrom(tokens, i);
      let j = i + 1;
      if (isOp(tokens[j], '(')) j++;
      while (j < tokens.length) {
        // dotted name [as alias]
        let name = tokens[j]?.value ?? '';
        if (isOp(tokens[j], '*')) {
          if (from !== undefined && isTrackedModule(from)) STAR_NAMES.forEach((n) => tracked.add(n));
          break;
        }
        if (tokens[j]?.kind !== 'name') break;
        j++;
        while (isOp(tokens[j], '.') && tokens[j + 1]?.kind === 'name') {
          name += `.${tokens[j + 1]?.value ?? ''}`;
          j += 2;
        }
        let bound = from === undefined ? (name.split('.')[0] ?? name) : name;
        if (tokens[j]?.value === 'as' && tokens[j + 1]?.kind === 'name') {
          bound = tokens[j + 1]?.value ?? bound;
          j += 2;
        }
        const full = from === undefined ? name : `${from}.${name}`;
        if (isTrackedModule(full) || (from !== undefined && isTrackedModule(from))) tracked.add(bound);
        if (!isOp(tokens[j], ',')) break;
        j++;
      }
      continue;
    }
    if (isOp(t, '=') || isOp(t, ':=')) {
      const prev = tokens[i - 1];
      if (prev?.kind !== 'name' || isOp(tokens[i - 2], '.')) continue;
      const value = postfix(tokens, i + 1, tracked);
      if (value?.tracked && value.tracked.every((o) => o.kind !== 'call')) tracked.add(prev.value);
    }
  }
  return tracked.size > before;
}

/** `from M import …`: M, when the `import` at `i` follows one. */
function findFrom(tokens: PyToken[], i: number): string | undefined {
  let j = i - 1;
  const parts: string[] = [];
  while (j >= 0 && (tokens[j]?.kind === 'name' || isOp(tokens[j], '.')) && tokens[j]?.value !== 'from') parts.unshift(tokens[j--]?.value ?? '');
  return tokens[j]?.value === 'from' ? parts.join('') : undefined;
}

export function pyRunnerWrites(text: string): RunnerWrite[] {
  const tokens = tokenizePython(text);
  const tracked = new Set(['unittest', 'pytest', '_pytest']);
  for (let round = 0; round < 6 && collectBindings(tokens, tracked); round++);
  const writes: RunnerWrite[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t?.kind !== 'name') continue;
    const p = postfix(tokens, i, tracked);
    if (!p) continue;
    const ops = p.tracked;
    const last = ops?.[ops.length - 1];
    const next = tokens[p.end];
    if (ops && last && last.kind !== 'call') {
      if (next?.kind === 'op' && AUGMENTED.has(next.value)) writes.push({ line: t.line, via: 'assignment' });
      else if (tokens[i - 1]?.value === 'del' && tokens[i - 1]?.kind === 'name') writes.push({ line: t.line, via: 'del' });
      else if (isOp(next, ':') && tokens.slice(p.end, p.end + 8).some((x) => isOp(x, '=')) && tokens[i - 1]?.line !== t.line)
        writes.push({ line: t.line, via: 'assignment' });
    }
    if (ops && last?.kind === 'call' && ops.length >= 2) {
      const method = ops[ops.length - 2];
      if (method?.kind === 'attr' && (method.name === '__setattr__' || method.name === '__delattr__' || (p.namespace && NAMESPACE_MUTATORS.has(method.name)))) {
        writes.push({ line: t.line, via: `.${method.name}(…)` });
      }
    }
    for (const call of p.calls) {
      if (!WRITE_CALLS.test(call.path)) continue;
      const args = argsOf(tokens, call.open, call.close);
      if (isTrackedArg(tokens, args[0], tracked)) writes.push({ line: t.line, via: `${call.path}(…)` });
    }
  }
  const seen = new Set<string>();
  return writes.filter((w) => !seen.has(`${w.line}:${w.via}`) && seen.add(`${w.line}:${w.via}`) !== undefined);
}
