import { describe, expect, it } from 'vitest';
import { editDistance, nearestId, nearestIds } from '../../src/core/format/near-match.js';

/** The textbook full-matrix Levenshtein distance, to check the banded one against. */
function fullDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

describe('editDistance', () => {
  it('agrees with the full computation within the cap, and says "above" beyond it', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const word = (): string => Array.from({ length: random(9) }, () => 'abc'[random(3)]).join('');
    for (let k = 0; k < 5000; k++) {
      const [a, b, cap] = [word(), word(), random(5)];
      const exact = fullDistance(a, b);
      const banded = editDistance(a, b, cap);
      if (exact <= cap) expect(banded, `${a} ${b} cap ${cap}`).toBe(exact);
      else expect(banded, `${a} ${b} cap ${cap}`).toBeGreaterThan(cap);
    }
  });
});

describe('nearestIds', () => {
  it('names the closest ids first, in the given order among equals', () => {
    const known = ['calc > adds', 'calc > add', 'calc > subtracts', 'calc > adds two'];
    expect(nearestIds('calc > addd', known, 3)).toEqual(['calc > adds', 'calc > add']);
    expect(nearestId('calc > addd', known)).toBe('calc > adds');
  });

  it('offers the same test name in a far-off file or class, after closer spellings', () => {
    // "olden" → "calculator" is past the edit bound; the test name is the same, so it is still offered.
    expect(nearestIds('tests.test_olden::test_add', ['tests.test_calculator::test_add'], 3)).toEqual(['tests.test_calculator::test_add']);
    expect(nearestIds('tests.test_olden::test_add', ['tests.test_calculator::test_add', 'tests.test_olden::test_odd'], 3)).toEqual([
      'tests.test_olden::test_odd',
      'tests.test_calculator::test_add',
    ]);
    expect(nearestIds('tests.test_olden::test_add', ['tests.test_calculator::test_sub'], 3)).toEqual([]);
  });

  it('suggests nothing when every character differs or nothing is close', () => {
    expect(nearestIds('a', ['f', 'ok'], 3)).toEqual([]);
    expect(nearestIds('slugify > lowercases', ['sortBy > is stable'], 3)).toEqual([]);
  });

  it('never offers a test that only shares the last word of a sentence-like name', () => {
    expect(nearestIds('formats a date', ['parses a date', 'quotes a string'], 3)).toEqual([]);
    expect(nearestIds('quotes a string', ['inspects a string', 'test/quote.js'], 3)).toEqual([]);
    // The same whole name under another suite is still the likely one.
    expect(nearestIds('calendar > formats a date', ['time > formats a date'], 3)).toEqual(['time > formats a date']);
  });
});
