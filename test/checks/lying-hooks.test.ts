import { describe, expect, it } from 'vitest';
import { jsLyingHooks } from '../../src/domain/checks/lying-hooks.js';
import { pyLyingHooks } from '../../src/domain/checks/py-lying-hooks.js';
import { runChecks } from '../../src/domain/checks/index.js';
import { grade } from '../../src/domain/grading/verdict.js';
import { diffOf, input } from './helpers.js';

const py = (text: string): string[] => pyLyingHooks(text).map((h) => `${h.hook}:${h.start}-${h.end}:${h.why}`);
const js = (text: string): string[] => jsLyingHooks(text).map((h) => `${h.hook}:${h.line}:${h.why}`);

describe('lying equality and conversion hooks, Python', () => {
  it.each([
    ['class Money(float):\n    def __eq__(self, other):\n        return True\n', '__eq__:2-3:ignores its argument'],
    [
      'class S(str):\n    def __eq__(self, other):\n        if isinstance(other, str):\n            return True\n        return False\n',
      '__eq__:2-5:returns a constant',
    ],
    ['class S(str):\n    def __ne__(self, o): return False\n', '__ne__:2-2:ignores its argument'],
    [
      'class N(int):\n    def __eq__(\n        self,\n        other,\n    ) -> bool:\n        """Docstring\nat column 0."""\n        return (\n            True\n        )\n',
      '__eq__:2-10:ignores its argument',
    ],
    ['class B:\n    def __bool__(self):\n        return True\n', '__bool__:2-3:ignores self'],
    ['class I:\n    def __index__(self):\n        return 3\n', '__index__:2-3:ignores self'],
    ['class H:\n    def __hash__(self):\n        self.seen = 1\n        return 0\n', '__hash__:2-4:returns a constant'],
    ['class L(float):\n    __eq__ = lambda self, other: True\n', '__eq__:2-2:ignores its argument'],
    ["Liar = type('Liar', (float,), {'__eq__': lambda s, o: True, '__hash__': float.__hash__})\n", '__eq__:1-1:ignores its argument'],
    ['class G:\n    def __ge__(self, other):\n        return not False\n', '__ge__:2-3:ignores its argument'],
    ['def _agree(a, b):\n    return True\n\n\nclass A(float):\n    __eq__ = _agree\n', '__eq__:1-6:ignores its argument'],
    ["_yes = lambda a, b: True\nsetattr(Money, '__eq__', _yes)\n", '__eq__:1-2:ignores its argument'],
  ])('flags %j', (text, expected) => {
    expect(py(text)).toEqual([expected]);
  });

  it.each([
    [
      'class Point:\n    def __eq__(self, other):\n        if not isinstance(other, Point):\n            return NotImplemented\n        return (self.x, self.y) == (other.x, other.y)\n\n    def __hash__(self):\n        return hash((self.x, self.y))\n',
    ],
    ['class Same:\n    def __eq__(self, other):\n        return self is other\n    __hash__ = None\n'],
    ['class Box:\n    def __bool__(self):\n        return bool(self.items)\n\n    def __index__(self):\n        return self.n\n'],
    ['class Delegate:\n    def __eq__(self, *args):\n        return super().__eq__(*args)\n'],
    ['def helper(self, other):\n    return True\n\nx.__eq__(y)\n'],
    ['class P:\n    def __eq__(self, other):\n        return NotImplemented\n'],
  ])('leaves an honest hook alone: %j', (text) => {
    expect(py(text)).toEqual([]);
  });
});

describe('lying equality and conversion hooks, JavaScript and TypeScript', () => {
  it.each([
    ['class Money {\n  valueOf() {\n    return 42;\n  }\n}\n', 'valueOf:2:returns a constant'],
    ['const m = {\n  [Symbol.toPrimitive](hint) { return hint === "number" ? 2 : "2"; },\n};\n', 'Symbol.toPrimitive:2:returns a constant'],
    ['const m = { [Symbol.toPrimitive]: () => 2 };\n', 'Symbol.toPrimitive:1:returns a constant'],
    ['Money.prototype.valueOf = function () { return 0.3; };\n', 'valueOf:1:returns a constant'],
    ['class V { equals(other: V): boolean { return true; } }\n', 'equals:1:ignores its argument'],
    ['const v = { equals: (o) => o === o || true, toString: () => `2` };\n', ['equals:1:returns a constant', 'toString:1:returns a constant']],
    ["const w = { 'valueOf': function () { return -1 } };\n", 'valueOf:1:returns a constant'],
    ['class F { toString = () => "7"; }\n', 'toString:1:returns a constant'],
    ['function two() {\n  return 2;\n}\nBox.prototype.valueOf = two;\n', 'valueOf:4:returns a constant'],
    ['const two = () => 2;\nconst box = { valueOf: two };\n', 'valueOf:2:returns a constant'],
  ])('flags %j', (text, expected: string | string[]) => {
    expect(js(text)).toEqual(typeof expected === 'string' ? [expected] : expected);
  });

  it.each([
    [
      'class Point {\n  toString() {\n    return `Point(${this.x}, ${this.y})`;\n  }\n  equals(other) {\n    return other instanceof Point && other.x === this.x;\n  }\n}\n',
    ],
    ['class Cents { valueOf(): number { return this.cents / 100; } [Symbol.toPrimitive](hint) { return hint === "string" ? this.label : this.cents; } }\n'],
    ['const s = value.toString(); const n = x.valueOf(); if (a.equals(b)) f();\n'],
    ['interface Eq { equals(other: Eq): boolean; toString(): string; }\n'],
    ['const id = { toString: () => name };\n'],
    ['function label() {\n  return this.name;\n}\nconst box = { toString: label, valueOf: compute() };\n'],
  ])('leaves honest code alone: %j', (text) => {
    expect(js(text)).toEqual([]);
  });
});

describe('runner_internals on lying hooks the change added', () => {
  const source = 'class Money(float):\n    def __eq__(self, other):\n        return True\n\n\ndef half(x):\n    return x\n';
  const check = (lines: number[], path = 'src/money.py') =>
    runChecks(
      input({
        diff: diffOf([{ path }]),
        addedLines: {
          files: [
            {
              path,
              binary: false,
              lines: lines.map((line) => ({ line, text: source.split('\n')[line - 1] ?? '' })),
              source: { text: source, encoding: 'utf-8', whole: false },
            },
          ],
          complete: true,
        },
      }),
    ).find((c) => c.id === 'runner_internals');

  it('fails when the change wrote any line of the hook, even only its body, and grades it tampered', () => {
    const result = check([3]);
    expect(result?.passed).toBe(false);
    expect(result?.message).toContain('lying-value in src/money.py:3');
    expect(grade({ checks: runChecks(input({})).map((c) => (c.id === 'runner_internals' && result ? result : c)) })).toMatchObject({ cause: 'tampered' });
  });

  it('passes when the change left the hook alone, and in test files', () => {
    expect(check([7])?.passed).toBe(true);
    expect(check([2, 3], 'tests/test_money.py')?.passed).toBe(true);
  });
});
