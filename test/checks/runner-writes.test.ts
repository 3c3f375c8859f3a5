import { describe, expect, it } from 'vitest';
import { jsRunnerWrites } from '../../src/domain/checks/js-writes.js';
import { pyRunnerWrites } from '../../src/domain/checks/py-writes.js';

/** Writes to the assertion library or runner, by every means; and honest code beside them that writes nothing of theirs. */
const JS_WRITES: Array<[string, string]> = [
  ['assert[name] = () => {};', 'assignment'],
  ["assert['strict' + 'Equal'] = f;", 'assignment'],
  ['Object.assign(assert, { equal() {} });', 'Object.assign'],
  ["Object.defineProperty(assert, 'equal', { value: () => {} });", 'Object.defineProperty'],
  ['Object.defineProperties(assert.strict, props);', 'Object.defineProperties'],
  ["Reflect.set(assert, 'equal', () => {});", 'Reflect.set'],
  ["Reflect.defineProperty(assert.strict, 'ok', { value() {} });", 'Reflect.defineProperty'],
  ['Object.setPrototypeOf(assert, fake);', 'Object.setPrototypeOf'],
  ['assert.AssertionError.prototype.toString = f;', 'assignment'],
  ["const a = require('node:assert'); a['strictEqual'] = f;", 'assignment'],
  ["const { strict: s } = require('assert'); s.equal = f;", 'assignment'],
  ["require('assert').strictEqual = () => {};", 'assignment'],
  ["import * as A from 'node:assert/strict';\nA.default.equal = f;", 'assignment'],
  ["import A from 'assert';\nA.ok = f;", 'assignment'],
  ["import { strict as S } from 'assert';\nS[k] = f;", 'assignment'],
  ['const { assign } = Object; assign(assert, x);', 'Object.assign'],
  ["const oa = Object['assign']; oa(require('assert'), x);", 'Object.assign'],
  ['const R = Reflect; R.set(assert, k, f);', 'Reflect.set'],
  ['Object.assign.call(null, assert, x);', 'Object.assign'],
  ['Reflect.set.apply(null, [assert, k, f]);', 'Reflect.set'],
  ["createRequire(import.meta.url)('assert').ok = f;", 'assignment'],
  ["const m = await import('node:assert'); m.default.ok = f;", 'assignment'],
  ["const x = require('\\x61ssert'); x.ok = f;", 'assignment'],
  ['\\u0061ssert.ok = f;', 'assignment'],
  ['const c = require(`assert`); c.ok = f;', 'assignment'],
  ['let a; a = require("assert"); a.ok = f;', 'assignment'],
  ["const b = require('assert'); const c = b; c.ok = f;", 'assignment'],
  ["const a = require('assert');\nfor (const m of [a, a.strict]) for (const k of Object.keys(m)) m[k] = () => {};", 'assignment'],
  ['globalThis.expect = fake;', 'assignment'],
  ["Object.defineProperty(globalThis, 'expect', { value: fake });", 'Object.defineProperty'],
  ['expect.extend({ toBe() { return { pass: true }; } });', '.extend(…)'],
  ["chai.use((c) => { c.Assertion.overwriteMethod('equal', f); });", '.use(…)'],
  ['delete assert.ok;', 'delete'],
  ['(assert as any).ok = f;', 'assignment'],
  ['assert!.ok = f;', 'assignment'],
  ['if (x) assert.ok = f;', 'assignment'],
  ["vi.spyOn(assert, 'ok');", 'vi.spyOn'],
  ["mock.method(assert, 'strictEqual', () => {});", 'mock.method'],
  ['with (assert) { ok = f; }', 'with'],
  ['assert.ok ||= f;', 'assignment'],
  ['/* note */ assert /* x */ [k] /* y */ = f;', 'assignment'],
];

const JS_HONEST: string[] = [
  'assert.equal(a, b);',
  'assert.strictEqual(x, 1);',
  "assert.throws(() => parse(''), /empty/);",
  'Object.assign(options, defaults);',
  'Object.assign({}, assert);',
  "Object.defineProperty(exports, '__esModule', { value: true });",
  'const o = { assert: 1 }; o.assert = 2;',
  '// assert.ok = f',
  '/* Object.assign(assert, x) */',
  "const s = 'assert.ok = f';",
  'if (assert.equal === undefined) throw e;',
  'this.assert.x = 1;',
  'const t = `assert.ok = ${v}`;',
  'config.expect = 3;',
  'const re = /assert.ok = f/;',
  "const a = require('./assert'); a.ok = f;",
  'function f(expect) { return expect == null ? 1 : 2; }',
];

const PY_WRITES: Array<[string, string]> = [
  ["setattr(unittest.TestCase, 'assertEqual', ok)", 'setattr(…)'],
  ['import unittest as u\nu.TestCase.assertEqual = ok', 'assignment'],
  ['from unittest import TestCase as T\nT.assertEqual = ok', 'assignment'],
  ['from unittest import TestCase\nsetattr(TestCase, name, ok)', 'setattr(…)'],
  ['from unittest import *\nTestCase.run = f', 'assignment'],
  ['pytest.approx = lambda *a, **k: True', 'assignment'],
  ['import pytest as p\np.approx = f', 'assignment'],
  ["vars(unittest.TestCase)['assertEqual'] = ok", 'assignment'],
  ["unittest.TestCase.__dict__['assertEqual'] = ok", 'assignment'],
  ["type.__setattr__(unittest.TestCase, 'assertEqual', ok)", 'type.__setattr__(…)'],
  ["object.__setattr__(unittest.TestCase, 'x', 1)", 'object.__setattr__(…)'],
  ["monkeypatch.setattr(unittest.TestCase, 'assertEqual', ok)", 'monkeypatch.setattr(…)'],
  ["monkeypatch.setattr('unittest.TestCase.assertEqual', ok)", 'monkeypatch.setattr(…)'],
  ["mock.patch('unittest.TestCase.assertEqual', ok).start()", 'mock.patch(…)'],
  ["patch.object(unittest.TestCase, 'assertEqual', ok).start()", 'patch.object(…)'],
  ["m = importlib.import_module('unittest')\nm.TestCase.assertEqual = ok", 'assignment'],
  ["sys.modules['unittest'].TestCase.assertEqual = ok", 'assignment'],
  ['TC = unittest.TestCase\nTC.run = f', 'assignment'],
  ['del unittest.TestCase.assertEqual', 'del'],
  ["unittest.TestCase.__setattr__('x', 1)", '.__setattr__(…)'],
  ['vars(unittest.TestCase).update(assertEqual=ok)', '.update(…)'],
  ["setattr(getattr(unittest, 'TestCase'), 'assertEqual', ok)", 'setattr(…)'],
  ['x = f\'{setattr(unittest.TestCase, "a", 1)}\'', 'setattr(…)'],
  ['from _pytest import python as pp\npp.x = 1', 'assignment'],
  ['import _pytest.python\n_pytest.python.pytest_pyfunc_call = f', 'assignment'],
];

const PY_HONEST: string[] = [
  'class T(unittest.TestCase):\n    def test(self):\n        self.assertEqual(a, b)',
  "setattr(obj, 'name', value)",
  'x = unittest.TestCase',
  "# setattr(unittest.TestCase, 'a', 1)",
  "s = 'unittest.TestCase.assertEqual = 1'",
  '"""\nunittest.TestCase.run = f\n"""',
  "monkeypatch.setattr(os, 'getcwd', f)",
  "mock.patch('os.getcwd')",
  'if unittest.TestCase.assertEqual == f: pass',
  'with pytest.raises(ValueError):\n    parse("")',
  'config.pytest = 1',
  "unittest.TestCase.__dict__['x']",
  'builtins._ = gettext',
];

describe('runner writes in JavaScript and TypeScript', () => {
  it.each(JS_WRITES)('%s', (code, via) => {
    expect(jsRunnerWrites(code).map((w) => w.via)).toContain(via);
  });
  it.each(JS_HONEST)('honest: %s', (code) => {
    expect(jsRunnerWrites(code)).toEqual([]);
  });
  it('reports the line of the write, counted as git counts lines', () => {
    expect(jsRunnerWrites("const a = require('assert');\n\n// x\u2028a[k] = f;\n")).toEqual([{ line: 3, via: 'assignment' }]);
  });
});

describe('runner writes in Python', () => {
  it.each(PY_WRITES)('%s', (code, via) => {
    expect(pyRunnerWrites(code).map((w) => w.via)).toContain(via);
  });
  it.each(PY_HONEST)('honest: %s', (code) => {
    expect(pyRunnerWrites(code)).toEqual([]);
  });
});

describe('cost', () => {
  it('deep nesting and long files cost time in proportion to their length', () => {
    const deep = `${'('.repeat(50_000)}assert${')'.repeat(50_000)}.ok = f;\n${'['.repeat(20_000)}`;
    expect(jsRunnerWrites(deep).map((w) => w.via)).toEqual(['assignment']);
    const long = 'const a = require("x"); a.b = c(d[e], { f: g });\n'.repeat(20_000);
    expect(jsRunnerWrites(long)).toEqual([]);
    expect(pyRunnerWrites(`x = ${'('.repeat(50_000)}1${')'.repeat(50_000)}\n${'['.repeat(20_000)}`)).toEqual([]);
  });
});
