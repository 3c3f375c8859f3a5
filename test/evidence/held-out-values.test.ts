/**
 * The held-out value run (src/domain/evidence/held-out-values.ts) in the real bwrap sandbox: the
 * function under test runs in a fresh interpreter, its result crosses to the harness with exact
 * builtin types, and the harness compares it. A value whose equality the repository wrote is a lie
 * however it is built; an honest value class (its own __eq__ that compares) is no lie when its
 * result is a builtin; a forged record on the channel is kept as forged.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runHeldOutValues, sameValue } from '../../src/domain/evidence/held-out-values.js';
import { makeSentinelDir, removeSentinelDir } from '../../src/domain/evidence/python-sentinel.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import type { HeldOutValueCall, HeldOutValuesEvidence, HeldOutValuesSpec } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeSentinelDir(dir);
});

async function run(
  runtime: HeldOutValuesSpec['runtime'],
  files: Record<string, string>,
  calls: HeldOutValueCall[],
  root = '.',
): Promise<HeldOutValuesEvidence> {
  const base = tempDir();
  const d = { workspace: join(base, 'ws'), results: join(base, 'results'), home: join(base, 'home'), tmp: join(base, 'tmp') };
  for (const dir of Object.values(d)) mkdirSync(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(d.workspace, path, '..'), { recursive: true });
    writeFileSync(join(d.workspace, path), text);
  }
  const [dir, sentinelDir] = [await makeSentinelDir(), await makeSentinelDir()];
  dirs.push(dir, sentinelDir);
  const executor = createExecutor('bwrap', { writable: [d.workspace, d.results], hidden: [], readOnly: [dir, sentinelDir], home: d.home, tmp: d.tmp });
  try {
    return await runHeldOutValues({
      executor,
      workspace: d.workspace,
      spec: { runtime, root, required: true, calls },
      dir,
      resultsDir: d.results,
      timeoutMs: 60_000,
      sentinel: { dir: sentinelDir, changeFiles: Object.keys(files), roots: [d.workspace] },
    });
  } finally {
    await executor.close();
  }
}

const outcomes = (e: HeldOutValuesEvidence): string[] => e.results.map((r) => `${r.outcome}: ${r.detail}`);

const PY_STATS = `
def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

def parts(text):
    return {"words": text.split(), "count": len(text.split()), "none": None, "pair": (1, 2.5)}

def boom():
    raise KeyError("x")
`;

describe('held-out values, Python', () => {
  it('compares builtin results in the harness: equal, different, raised, missing module', async () => {
    const e = await run('python', { 'stats.py': PY_STATS }, [
      { call: 'stats:median', args: [[4, 1, 3, 2]], expect: 2.5 },
      { call: 'stats:median', args: [[3, 1, 2]], expect: 2 },
      { call: 'stats:median', args: [[3, 1, 2]], expect: 3 },
      { call: 'stats:parts', args: ['a b'], expect: { words: ['a', 'b'], count: 2, none: null, pair: [1, 2.5] } },
      { call: 'stats:boom', args: [], expect: null },
      { call: 'nowhere:f', args: [], expect: null },
    ]);
    expect(outcomes(e)).toEqual([
      'equal: 2.5',
      'equal: 2',
      'differs: 2',
      'equal: {"words": ["a", "b"], "count": 2, "none": null, "pair": [1, 2.5]}',
      'raised: raised KeyError',
      'raised: raised import of nowhere: ModuleNotFoundError',
    ]);
    expect(e.forged).toEqual([]);
    expect(e.sentinel?.findings ?? []).toEqual([]);
  });

  it('a float or str subclass whose __eq__ always holds is a lie, however it is built; the harness still sees the wrong value', async () => {
    const liar = `
class Close(float):
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__

Text = type("Text", (str,), {"__eq__": lambda a, b: True, "__hash__": str.__hash__})
import posixpath
class Borrowed(float):
    __eq__ = posixpath.join

def median(values):
    return Close(sorted(values)[len(values) // 2])

def name():
    return [Text("wrong")]

def borrowed():
    return {"v": Borrowed(1.0)}
`;
    const e = await run('python', { 'stats.py': liar }, [
      { call: 'stats:median', args: [[4, 1, 3, 2]], expect: 2.5 },
      { call: 'stats:name', args: [], expect: ['right'] },
      { call: 'stats:borrowed', args: [], expect: { v: 2 } },
    ]);
    expect(e.results.map((r) => r.outcome)).toEqual(['lying', 'lying', 'lying']);
    expect(e.results[0]?.detail).toMatch(/Close with its own __eq__/);
    expect(e.results[2]?.detail).toMatch(/Borrowed with its own __eq__|subclass of a builtin type \(Borrowed\) with its own equality/);
  });

  it('an honest value class (an __eq__ that compares) is no lie when the result is a builtin; a plain subclass or an object is unserialisable, not a lie', async () => {
    const honest = `
import collections, fractions
class Money:
    def __init__(self, cents):
        self.cents = cents
    def __eq__(self, other):
        return isinstance(other, Money) and other.cents == self.cents
    __hash__ = None

Pair = collections.namedtuple("Pair", "a b")

def total(items):
    return sum(Money(c).cents for c in items)

def pair():
    return Pair(1, 2)

def third():
    return fractions.Fraction(1, 3)
`;
    const e = await run('python', { 'stats.py': honest }, [
      { call: 'stats:total', args: [[1, 2]], expect: 3 },
      { call: 'stats:pair', args: [], expect: [1, 2] },
      { call: 'stats:third', args: [], expect: 0.5 },
    ]);
    expect(e.results.map((r) => r.outcome)).toEqual(['equal', 'unserialisable', 'unserialisable']);
  });

  it('imports from a src layout root, and a forged record on the channel is kept as forged', async () => {
    const forger = `
import json, os, socket
def median(values):
    s = socket.socket(socket.AF_UNIX)
    here = [d for d in os.listdir("/tmp") if d.startswith("crucible-py-")]
    for d in here:
        path = os.path.join("/tmp", d, "values.sock")
        if os.path.exists(path):
            try:
                s.connect(path)
                s.sendall(b'{"i": 0, "value": ["float", "2.5"]}\\n')
            except OSError:
                pass
    return 3
`;
    const e = await run(
      'python',
      { 'src/pkg/__init__.py': '', 'src/pkg/stats.py': forger },
      [{ call: 'pkg.stats:median', args: [[4, 1, 3, 2]], expect: 2.5 }],
      'src',
    );
    expect(outcomes(e)).toEqual(['differs: 3']);
    expect(e.forged).toEqual(['a second connection to the value channel']);
  });
});

describe('held-out values, Node', () => {
  it('compares plain results; a proxy, a boxed number, a getter, a constant valueOf or a toPrimitive is a lie', async () => {
    const mod = `
export const slug = (s) => s.toLowerCase().split(' ').join('-');
export const parts = (s) => ({ words: s.split(' '), n: s.split(' ').length, big: 10n });
export const proxy = () => new Proxy({ a: 1 }, {});
export const boxed = () => [new Number(2)];
export const getter = () => ({ get a() { return 1; } });
export const constant = () => ({ valueOf: () => 42 });
export const prim = () => { class V { [Symbol.toPrimitive]() { return 'x'; } } return new V(); };
export const date = () => new Date(0);
export const later = async () => 'done';
`;
    const e = await run('node', { 'src/index.mjs': mod }, [
      { call: 'src/index.mjs:slug', args: ['A B'], expect: 'a-b' },
      { call: 'src/index.mjs:parts', args: ['a b'], expect: { words: ['a', 'b'], n: 2, big: 10 } },
      { call: 'src/index.mjs:proxy', args: [], expect: { a: 1 } },
      { call: 'src/index.mjs:boxed', args: [], expect: [2] },
      { call: 'src/index.mjs:getter', args: [], expect: { a: 1 } },
      { call: 'src/index.mjs:constant', args: [], expect: 42 },
      { call: 'src/index.mjs:prim', args: [], expect: 'x' },
      { call: 'src/index.mjs:date', args: [], expect: 0 },
      { call: 'src/index.mjs:later', args: [], expect: 'done' },
    ]);
    expect(e.results.map((r) => r.outcome)).toEqual(['equal', 'equal', 'lying', 'lying', 'lying', 'lying', 'lying', 'unserialisable', 'equal']);
    expect(e.forged).toEqual([]);
  });

  it('a CommonJS module, and a change that patches Array.prototype.push and JSON.stringify cannot change what crosses', async () => {
    const cjs = `
Array.prototype.push = function () { return 0; };
JSON.stringify = () => '"forged"';
Object.defineProperty(Array.prototype, 'toJSON', { value: () => 'forged' });
exports.words = (s) => s.split(' ');
`;
    const e = await run('node', { 'lib/words.js': cjs }, [{ call: 'lib/words.js:words', args: ['a b'], expect: ['a', 'b'] }]);
    expect(outcomes(e)).toEqual(['equal: ["a", "b"]']);
  });
});

describe('sameValue', () => {
  it('numbers by value, NaN equal to NaN, dict keys as a set, lists in order', () => {
    expect(sameValue(['int', '2'], 2)).toBe(true);
    expect(sameValue(['float', '2.0'], 2)).toBe(true);
    expect(sameValue(['float', 'nan'], NaN)).toBe(true);
    expect(sameValue(['int', '2'], 2.5)).toBe(false);
    expect(sameValue(['str', '2'], 2)).toBe(false);
    expect(
      sameValue(
        [
          'dict',
          [
            ['b', ['int', '1']],
            ['a', ['none']],
          ],
        ],
        { a: null, b: 1 },
      ),
    ).toBe(true);
    expect(sameValue(['dict', [['a', ['none']]]], { a: null, b: 1 })).toBe(false);
    expect(
      sameValue(
        [
          'list',
          [
            ['int', '1'],
            ['int', '2'],
          ],
        ],
        [2, 1],
      ),
    ).toBe(false);
    expect(sameValue(['undefined'], null)).toBe(false);
  });
});
