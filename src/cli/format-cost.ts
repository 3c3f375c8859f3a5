import { costFrontier, costPerSolve, costRowsOf } from '../domain/stats/index.js';
import type { AttemptResult } from '../core/types/index.js';

const usd = (x: number | null): string => (x === null ? 'n/a' : x === Infinity ? '∞' : `$${x < 1 ? x.toFixed(3) : x.toFixed(2)}`);

/**
 * Cost per solved task per metered agent with its 95% interval, and which agents the pass-rate /
 * cost frontier shows as dominated (only where the paired test separates them). Empty without costs.
 */
export function formatCostPerSolve(attempts: readonly AttemptResult[], seed = 1): string {
  const points = costRowsOf(attempts);
  if (points.length === 0) return '';
  const frontier = new Map(costFrontier(points, { seed }).map((e) => [e.agent, e.dominatedBy]));
  const lines = points.map(({ agent, rows }) => {
    const c = costPerSolve(rows, { seed });
    const dominated = frontier.get(agent) ?? [];
    const where = dominated.length > 0 ? `dominated by ${dominated.join(', ')}` : 'on the frontier';
    return `  ${agent}: ${usd(c.cost)} [${usd(c.low)}, ${usd(c.high)}] per solved task (${c.solved} solved, ${usd(c.spent)} spent) · ${where}`;
  });
  return ['cost per solved task (95% interval over tasks; dominated = the paired test separates a better agent that costs no more):', ...lines].join('\n');
}
