import { describe, expect, it } from 'vitest';
import type { RunSummaryFile } from '../../src/engine/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('crucible run --adaptive', () => {
  it(
    'stops the examples early once oracle and nop are separated, and says why',
    async () => {
      const out = tempDir();
      const args = ['run', 'examples/tasks.yaml', '--agent', 'oracle', '--agent', 'nop', '--adaptive', '--max-attempts', '60', '--out', out, '--json'];
      // 8 pairs separate them (2^8/9 ≥ 20); the budget allows for one look's overshoot.
      const result = await runCli(args, { attempts: 24 });
      // nop fails every attempt it makes: exit 1, as for any run with a failed attempt.
      expect(result.status, result.stderr).toBe(1);
      const summary = JSON.parse(result.stdout) as RunSummaryFile;
      expect(summary.adaptive).toMatchObject({ stopped: 'target met', maxAttempts: 60 });
      expect(summary.executed).toBeLessThan(60);
      expect(summary.executed).toBe(summary.adaptive?.spent);
      expect(summary.adaptive?.comparisons).toEqual([expect.objectContaining({ a: 'oracle', b: 'nop', verdict: 'A better' })]);
      expect(result.stderr).toMatch(/adaptive: stopped, target met: every pair of agents separated, after \d+ of at most 60 attempts/);
      expect(result.stderr).toMatch(/oracle vs nop: A better \(e-value [\d.]+ vs 20\.0, \d+–0 on discordant pairs\)/);
      // Stopping once decided is the design: no "stopped early … run the rest" beside it.
      expect(result.stderr).not.toContain('stopped early');
    },
    attemptBudget(24),
  );

  it('refuses a budget or target without --adaptive, and --adaptive without a budget', async () => {
    const out = tempDir();
    const base = ['run', 'examples/tasks.yaml', '--agent', 'oracle', '--out', out];
    const stray = await runCli([...base, '--max-attempts', '10']);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain('--max-attempts only applies with --adaptive (fix: add --adaptive, or drop --max-attempts)');
    const noBudget = await runCli([...base, '--adaptive']);
    expect(noBudget.status).toBe(2);
    expect(noBudget.stderr).toContain('--adaptive needs a budget (fix: add --max-attempts <n>');
    const badAlpha = await runCli([...base, '--adaptive', '--max-attempts', '10', '--separate', '5']);
    expect(badAlpha.status).toBe(2);
    expect(badAlpha.stderr).toContain('--separate 5: expected a number between 0 and 1');
  });

  it('crucible plan says what the fixed and the adaptive design need, and refuses a bad --detect', async () => {
    const plan = await runCli(['plan', 'examples/tasks.yaml', '--detect', '30pp', '--sims', '40', '--json']);
    expect(plan.status, plan.stderr).toBe(0);
    const parsed = JSON.parse(plan.stdout) as {
      tasks: number;
      detect: number;
      fixed: { trials: number; attempts: number } | null;
      adaptive: { attempts: number } | null;
    };
    expect(parsed.tasks).toBe(6);
    expect(parsed.detect).toBeCloseTo(0.3, 12);
    expect(parsed.fixed?.attempts).toBe((parsed.fixed?.trials ?? 0) * 6 * 2);
    expect(parsed.adaptive?.attempts).toBeGreaterThan(0);
    const bad = await runCli(['plan', 'examples/tasks.yaml', '--detect', 'five']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--detect five: expected a difference in pass rate such as 5pp, 5% or 0.05 (fix: e.g. --detect 5pp)');
  });
});
