import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatComparison, runStrengths } from '../../src/cli/commands/compare.js';
import { compareRuns, type CellCounts } from '../../src/engine/index.js';
import type { StrengthFile } from '../../src/features/strength/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { strengthEntry } from './fixtures.js';

const tempDir = useTempDirs();

// eslint-disable-next-line no-control-regex
const plain = (s: string): string => s.replace(/\u001b\[[0-9;]*m/g, '');

function runDir(root: string, runId: string, file?: StrengthFile): string {
  const dir = join(root, 'runs', runId);
  mkdirSync(dir, { recursive: true });
  if (file) writeFileSync(join(dir, 'strength.json'), JSON.stringify(file));
  return dir;
}

const cells = (passes: number): CellCounts[] => [
  { agent: 'nop', taskId: 'py-median', n: 2, passes, errors: 0 },
  { agent: 'nop', taskId: 'js-slugify', n: 2, passes, errors: 0 },
];

describe('compare beside each run’s task strength', () => {
  it('prints each run’s median and weakest tasks under the pass rates, and names the run that had none', () => {
    const root = tempDir();
    const a = runDir(root, 'ra', { schemaVersion: 1, tasks: [strengthEntry('py-median', 'k1', 0.5, 5), strengthEntry('js-slugify', 'k2', 1, 0)] });
    const b = runDir(root, 'rb');
    const text = plain(formatComparison(compareRuns({ runId: 'ra', cells: cells(1) }, { runId: 'rb', cells: cells(2) }), runStrengths(a, b)));
    expect(text).toContain('task strength');
    expect(text).toContain('  A median 75% over 2 tasks; weakest: py-median 50% (5 surviving)');
    expect(text).toContain('  B not measured');
    // Under the pass rates, not before them.
    expect(text.indexOf('task strength')).toBeGreaterThan(text.indexOf('py-median'));
  });

  it('says nothing of strength when neither run directory has a strength.json', () => {
    const root = tempDir();
    const strength = runStrengths(runDir(root, 'ra'), runDir(root, 'rb'));
    expect(strength).toEqual({});
    expect(plain(formatComparison(compareRuns({ runId: 'ra', cells: cells(1) }, { runId: 'rb', cells: cells(2) }), strength))).not.toMatch(/strength/i);
  });
});
