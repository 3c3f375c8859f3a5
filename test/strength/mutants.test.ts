import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mutantsOf } from '../../src/features/strength/index.js';
import { parsePatch } from '../../src/features/strength/patch-hunks.js';

const ALL = { max: 10_000, seed: 1 };

function patchOf(file: string, before: string[], after: string[]): string {
  const body = [...before.map((l) => `-${l}`), ...after.map((l) => `+${l}`)];
  return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -1,${before.length} +1,${after.length} @@\n${body.join('\n')}\n`;
}

/** The lines a patch adds, in order. */
const added = (patch: string): string[] =>
  parsePatch(patch).files.flatMap((f) => f.hunks.flatMap((h) => h.lines.filter((l) => l.kind === '+').map((l) => l.text)));
const kept = (patch: string): string[] =>
  parsePatch(patch).files.flatMap((f) => f.hunks.flatMap((h) => h.lines.filter((l) => l.kind !== '+').map((l) => `${l.kind}${l.text}`)));

describe('mutants of a fix', () => {
  it('change only the lines the fix adds, and each changes exactly one of them', () => {
    for (const name of ['js-slugify', 'js-sortby', 'js-csv', 'ts-lru', 'py-stats', 'py-roman']) {
      const oracle = readFileSync(`examples/oracles/${name}.patch`, 'utf8');
      const set = mutantsOf(oracle, ALL);
      expect(set.mutants.length, name).toBeGreaterThan(0);
      for (const m of set.mutants) {
        expect(kept(m.patch), `${name} ${m.operator}`).toEqual(kept(oracle));
        const before = added(oracle);
        const after = added(m.patch);
        if (m.after === null) expect(after.length).toBe(before.length - 1);
        else expect(after.filter((l, i) => l !== before[i])).toEqual([m.after]);
        expect(m.patch).not.toBe(oracle);
      }
    }
  });

  it('finds operators on tokens: nothing inside a string or a comment is touched', () => {
    const js = mutantsOf(patchOf('a.js', ['x'], ["const s = 'a < b' + `c > d`; // e < f", 'return a < b;']), ALL);
    expect(js.mutants.filter((m) => m.operator === 'comparison').map((m) => m.after)).toEqual(['return a <= b;', 'return a > b;']);
    expect(js.mutants.some((m) => m.before.startsWith('const s') && m.operator !== 'arithmetic' && m.operator !== 'remove-statement')).toBe(false);
    const py = mutantsOf(patchOf('a.py', ['x'], ['s = "a < b"  # c < d', 'ok = a < b']), ALL);
    expect(py.mutants.filter((m) => m.operator === 'comparison').map((m) => m.after)).toEqual(['ok = a <= b', 'ok = a > b']);
  });

  it('makes each kind of near miss', () => {
    const py = mutantsOf(
      patchOf('m.py', ['x'], ['def f(xs, n):', '    if n % 2 == 0 and xs:', '        return g(xs[n], n)', '    y = n', '    return not y']),
      ALL,
    );
    const afters = py.mutants.map((m) => `${m.operator}: ${m.after}`);
    expect(afters).toEqual(
      expect.arrayContaining([
        'negate-condition:     if not (n % 2 == 0 and xs):',
        'arithmetic:     if n // 2 == 0 and xs:',
        'constant:     if n % 3 == 0 and xs:',
        'constant:     if n % 2 == 1 and xs:',
        'logical:     if n % 2 == 0 or xs:',
        'swap-arguments:         return g(n, xs[n])',
        'index-off-by-one:         return g(xs[n + 1], n)',
        'return-value:         return None',
        'drop-negation:     return y',
        'remove-statement: null',
      ]),
    );
    // The only statement of a block (the `if`'s return) never goes: that would not compile.
    expect(py.mutants.filter((m) => m.operator === 'remove-statement').map((m) => m.before)).toEqual(['    y = n', '    return not y']);
  });

  it('keeps a patch that applies: a dropped line lowers the hunk header and the next hunk moves up', () => {
    const patch = [
      'diff --git a/a.js b/a.js',
      '--- a/a.js',
      '+++ b/a.js',
      '@@ -1,2 +1,3 @@',
      ' function f() {',
      '+  g();',
      ' }',
      '@@ -10,1 +11,2 @@',
      ' h();',
      '+k();',
      '',
    ].join('\n');
    const dropped = mutantsOf(patch, ALL).mutants.find((m) => m.operator === 'remove-statement' && m.before === '  g();');
    expect(dropped?.patch).toContain('@@ -1,2 +1,2 @@\n function f() {\n }\n@@ -10,1 +10,2 @@\n h();\n+k();\n');
  });

  it('counts edits that leave the fix as it was apart, never as mutants', () => {
    const set = mutantsOf(patchOf('a.js', ['x'], ['f(a, a)']), ALL);
    expect(set.sameAsOracle).toBe(1);
    expect(set.mutants.filter((m) => m.operator === 'swap-arguments')).toEqual([]);
  });

  it('samples --max-mutants with the seed: the same seed the same mutants, in patch order', () => {
    const oracle = readFileSync('examples/oracles/js-csv.patch', 'utf8');
    const all = mutantsOf(oracle, ALL);
    const a = mutantsOf(oracle, { max: 5, seed: 7 });
    expect(a.candidates).toBe(all.candidates);
    expect(a.mutants.map((m) => m.id)).toEqual(mutantsOf(oracle, { max: 5, seed: 7 }).mutants.map((m) => m.id));
    expect(a.mutants.map((m) => m.id)).not.toEqual(mutantsOf(oracle, { max: 5, seed: 8 }).mutants.map((m) => m.id));
    const order = all.mutants.map((m) => m.id);
    const positions = a.mutants.map((m) => order.indexOf(m.id));
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
  });

  it('names files no tokenizer here reads, and makes no mutant of them', () => {
    const set = mutantsOf(patchOf('main.go', ['x'], ['if a < b {']), ALL);
    expect(set).toMatchObject({ mutants: [], unsupportedFiles: ['main.go'] });
  });
});
