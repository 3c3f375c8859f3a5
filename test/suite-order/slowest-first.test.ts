import { describe, expect, it } from 'vitest';
import { fileKey, slowestFirst, type SequencedFile } from '../setup/slowest-first.js';

const root = '/repo';
const file = (path: string, isolate = true): SequencedFile & { path: string } => ({ path, moduleId: `${root}/${path}`, project: { config: { isolate } } });
const order = (files: Array<SequencedFile & { path: string }>, durations: Record<string, number>, sizes: Record<string, number> = {}): string[] =>
  slowestFirst(files, durations, root, (id) => sizes[fileKey(root, id)] ?? 0).map((f) => f.path);

describe('slowestFirst: the order test files start in', () => {
  it('starts the longest recorded file first, whatever the tier', () => {
    const files = [file('test/a.test.ts'), file('test/redteam/attacks.test.ts'), file('test/e2e/x.test.ts')];
    expect(order(files, { 'test/a.test.ts': 1_000, 'test/redteam/attacks.test.ts': 300_000, 'test/e2e/x.test.ts': 40_000 })).toEqual([
      'test/redteam/attacks.test.ts',
      'test/e2e/x.test.ts',
      'test/a.test.ts',
    ]);
  });

  it('starts files with no recorded duration before any recorded one, the larger first', () => {
    const files = [file('test/old.test.ts'), file('test/new-small.test.ts'), file('test/new-large.test.ts')];
    expect(order(files, { 'test/old.test.ts': 500_000 }, { 'test/new-small.test.ts': 100, 'test/new-large.test.ts': 9_000 })).toEqual([
      'test/new-large.test.ts',
      'test/new-small.test.ts',
      'test/old.test.ts',
    ]);
  });

  it('keeps the files of a shared-worker tier together, last, longest first, recorded or not', () => {
    const files = [file('test/u1.test.ts', false), file('test/i.test.ts'), file('test/u2.test.ts', false), file('test/u3.test.ts', false)];
    expect(order(files, { 'test/u1.test.ts': 10, 'test/u2.test.ts': 900_000, 'test/i.test.ts': 5 }, { 'test/u3.test.ts': 1e9 })).toEqual([
      'test/i.test.ts',
      'test/u2.test.ts',
      'test/u1.test.ts',
      'test/u3.test.ts',
    ]);
  });
});
