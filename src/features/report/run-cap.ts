import type { RunBudgetReport } from '../../engine/index.js';

/**
 * A run's --max-cost-total / --max-tokens-total in one line for the reports: what it spent against
 * which cap, and which cap stopped it. The same words as the end-of-run output (cli/format-run.ts).
 */
export function runCapText(budget: RunBudgetReport): string {
  const caps: string[] = [];
  if (budget.limits.maxCostUsd !== undefined) caps.push(`$${budget.spentUsd} of --max-cost-total $${budget.limits.maxCostUsd}`);
  if (budget.limits.maxTokens !== undefined) caps.push(`${budget.spentTokens} tokens of --max-tokens-total ${budget.limits.maxTokens}`);
  const spent = caps.join(', ');
  if (budget.reached === undefined) return `spent ${spent}; no cap reached`;
  return `run ${budget.reached === 'cost' ? 'cost' : 'token'} cap reached (spent ${spent}); no further attempt started`;
}
