import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMatrixStress } from '../../src/features/diagnostics/matrix-stress.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tmp = useTempDirs();
// Synthetic attempts cost the engine's bookkeeping only (a few ms each); budget them like a handful of real ones.
const BUDGET_MS = 600_000;

describe('matrix stress', () => {
  it(
    'passes its integrity checks on the real engine, for a full run and a fail-fast run',
    async () => {
      const report = await runMatrixStress({ attempts: 300, concurrency: 4 });
      expect(report.checks.filter((c) => !c.passed)).toEqual([]);
      expect(report.passed).toBe(true);
      const [full, failFast] = report.runs;
      expect(full).toMatchObject({
        run: 'full',
        ended: 'completed',
        planned: 300,
        submitted: 300,
        skipped: 0,
        executed: 300,
        checkpointRows: 300,
        historyRows: 300,
      });
      expect(failFast?.ended).toBe('fail-fast');
      expect(failFast?.skipped).toBeGreaterThan(0);
      expect((failFast?.submitted ?? 0) + (failFast?.skipped ?? 0)).toBe(300);
      expect(report.checks.map((c) => c.id)).toEqual(
        expect.arrayContaining(['fail-fast accounting', 'stable order', 'no duplicate identity', 'history rows = executed']),
      );
      expect(report.memory.sampledPeakRssMb).toBeGreaterThan(0);
    },
    BUDGET_MS,
  );

  it(
    'detects a runner that returns another attempt’s identity',
    async () => {
      const report = await runMatrixStress({ attempts: 60, concurrency: 2, failFast: false, fault: 'duplicate-identity' });
      expect(report.passed).toBe(false);
      const failed = report.checks.filter((c) => !c.passed).map((c) => c.id);
      expect(failed).toEqual(expect.arrayContaining(['no duplicate identity', 'checkpoint rows = executed', 'executed = submitted']));
    },
    BUDGET_MS,
  );

  it(
    'writes JSON and Markdown under <out>/diagnostics/matrix-stress/ from the CLI and exits 0',
    () => {
      const out = tmp();
      const r = crucible(['diagnostics', 'matrix-stress', '--attempts', '40', '--concurrency', '3', '-o', out]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/integrity checks passed \(40 attempts, concurrency 3\)/);
      expect(r.stdout).toMatch(/peak RSS \d+(\.\d)? MB/);
      const [id] = readdirSync(join(out, 'diagnostics', 'matrix-stress'));
      const json = JSON.parse(readFileSync(join(out, 'diagnostics', 'matrix-stress', id ?? '', 'report.json'), 'utf8')) as { passed: boolean; runs: unknown[] };
      expect(json.passed).toBe(true);
      expect(json.runs).toHaveLength(2);
      expect(readFileSync(join(out, 'diagnostics', 'matrix-stress', id ?? '', 'report.md'), 'utf8')).toMatch(/Every integrity check passed/);
    },
    BUDGET_MS,
  );

  it('refuses a bad --attempts with exit 2 and one line', () => {
    const r = crucible(['diagnostics', 'matrix-stress', '--attempts', '0', '-o', tmp()]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--attempts 0: expected a whole number from 1/);
  });
});
