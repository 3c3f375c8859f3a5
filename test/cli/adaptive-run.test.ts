import { describe, expect, it } from 'vitest';
import type { RunSummaryFile } from '../../src/engine/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('crucible run --adaptive', () => {
  it(
    'stops the examples early once oracle and nop are separated, and says why',
    () => {
      const out = tempDir();
      const args = ['run', 'examples/tasks.yaml', '--agent', 'oracle', '--agent', 'nop', '--adaptive', '--max-attempts', '60', '--out', out, '--json'];
      // 8 pairs separate them (2^8/9 ≥ 20); the budget allows for one look's overshoot.
      const result = crucible(args, { attempts: 24 });
      // nop fails every attempt it makes: exit 1, as for any run with a failed attempt.
      expect(result.status, result.stderr).toBe(1);
      const summary = JSON.parse(result.stdout) as RunSummaryFile;
      expect(summary.adaptive).toMatchObject({ stopped: 'target met', maxAttempts: 60 });
      expect(summary.executed).toBeLessThan(60);
      expect(summary.executed).toBe(summary.adaptive?.spent);
      expect(summary.adaptive?.comparisons).toEqual([expect.objectContaining({ a: 'oracle', b: 'nop', verdict: 'A better' })]);
      expect(result.stderr).toMatch(/adaptive: stopped, target met: every pair of agents separated, after \d+ of at most 60 attempts/);
      expect(result.stderr).toMatch(/oracle vs nop: A better \(e-value [\d.]+ vs 20\.0, \d+–0 on discordant pairs\)/);
    },
    attemptBudget(24),
  );

  it('refuses a budget or target without --adaptive, and --adaptive without a budget', () => {
    const out = tempDir();
    const base = ['run', 'examples/tasks.yaml', '--agent', 'oracle', '--out', out];
    const stray = crucible([...base, '--max-attempts', '10']);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain('--max-attempts only applies with --adaptive (fix: add --adaptive, or drop --max-attempts)');
    const noBudget = crucible([...base, '--adaptive']);
    expect(noBudget.status).toBe(2);
    expect(noBudget.stderr).toContain('--adaptive needs a budget (fix: add --max-attempts <n>');
    const badAlpha = crucible([...base, '--adaptive', '--max-attempts', '10', '--separate', '5']);
    expect(badAlpha.status).toBe(2);
    expect(badAlpha.stderr).toContain('--separate 5: expected a number between 0 and 1');
  });
});
