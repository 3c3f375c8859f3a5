import { describe, expect, it } from 'vitest';
import { parseDetect } from '../../src/cli/commands/plan.js';
import { planDesigns, simulateAdaptive, simulateFixed, type Scenario } from '../../src/domain/stats/index.js';

describe('design simulation and planning', () => {
  it('finds the fewest trials with the wanted power, and a budget the adaptive design stays under', () => {
    const plan = planDesigns({ tasks: 6, detect: 0.6, power: 0.8, runs: 60, maxTasks: 200 });
    expect(plan.fixed).not.toBeNull();
    const fixed = plan.fixed as NonNullable<typeof plan.fixed>;
    expect(fixed.power).toBeGreaterThanOrEqual(0.8);
    expect(fixed.attempts).toBe(fixed.trials * 6 * 2);
    // One trial fewer falls short (the search returns the smallest count, not just a sufficient one).
    if (fixed.trials > 1) {
      const scenario: Scenario = { agents: ['a', 'b'], passProbability: [Array(6).fill(0.8), Array(6).fill(0.2)] };
      const fewer = simulateFixed(scenario, fixed.trials - 1, { runs: 60, seed: 1 + fixed.trials - 1 + 6, iterations: 500 });
      expect(fewer.comparisons[0]?.power).toBeLessThan(0.8);
    }
    expect(plan.adaptive?.attempts).toBeLessThanOrEqual(fixed.attempts);
    expect(plan.tasksNeeded?.power).toBeGreaterThanOrEqual(0.8);
  });

  it('says when the task set cannot reach the power at any trial count', () => {
    const plan = planDesigns({ tasks: 3, detect: 0.05, power: 0.8, runs: 20, maxTrials: 20, maxTasks: 12 });
    expect(plan).toMatchObject({ fixed: null, adaptive: null, tasksNeeded: null });
  });

  it('simulated identical agents: neither design separates them more often than alpha allows', () => {
    const scenario: Scenario = { agents: ['a', 'b'], passProbability: [Array(10).fill(0.5), Array(10).fill(0.5)] };
    const adaptive = simulateAdaptive(scenario, 200, { runs: 200, seed: 5, batch: 10 });
    expect(adaptive.comparisons[0]?.error).toBeLessThanOrEqual(0.05);
    expect(adaptive.attempts).toBeLessThanOrEqual(200);
  });

  it('reads --detect as percentage points, a percentage or a fraction', () => {
    expect(parseDetect('5pp')).toBeCloseTo(0.05, 12);
    expect(parseDetect('12.5%')).toBeCloseTo(0.125, 12);
    expect(parseDetect('0.1')).toBe(0.1);
    expect(() => parseDetect('five')).toThrow('--detect five: expected a difference in pass rate such as 5pp, 5% or 0.05 (fix: e.g. --detect 5pp)');
    expect(() => parseDetect('100pp')).toThrow(/--detect 100pp/);
  });
});
