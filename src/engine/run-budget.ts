import type { AttemptResult } from '../core/types/index.js';

/** `--max-cost-total` / `--max-tokens-total`: caps on a whole run, summed over its attempts' gateway usage. */
export interface RunLimits {
  maxCostUsd?: number;
  /** Input + output tokens over all attempts. */
  maxTokens?: number;
}

/** What summary.json says of a run's caps: what was spent, and which cap stopped planning. */
export interface RunBudgetReport {
  limits: RunLimits;
  spentUsd: number;
  spentTokens: number;
  /** Set when a cap was reached and no further attempt was started. */
  reached?: 'cost' | 'tokens';
}

/**
 * Sums the finished attempts' metered usage; once a cap is reached no new attempt starts (the run
 * loop's `halted`). The requests of attempts still running are held to the same caps at the
 * gateway (infra/gateway/run-pool.ts), so a local run ends above its cap by at most one request's
 * worst case.
 */
export class RunBudget {
  private spentUsd = 0;
  private spentTokens = 0;

  constructor(private readonly limits: RunLimits = {}) {}

  get active(): boolean {
    return this.limits.maxCostUsd !== undefined || this.limits.maxTokens !== undefined;
  }

  note(result: Pick<AttemptResult, 'agentResult'>): void {
    const usage = result.agentResult?.usage;
    if (!usage) return;
    this.spentUsd += usage.costUsd ?? 0;
    this.spentTokens += usage.inputTokens + usage.outputTokens;
  }

  reached(): 'cost' | 'tokens' | undefined {
    if (this.limits.maxCostUsd !== undefined && this.spentUsd >= this.limits.maxCostUsd) return 'cost';
    if (this.limits.maxTokens !== undefined && this.spentTokens >= this.limits.maxTokens) return 'tokens';
    return undefined;
  }

  report(): RunBudgetReport | undefined {
    if (!this.active) return undefined;
    const reached = this.reached();
    return { limits: { ...this.limits }, spentUsd: Math.round(this.spentUsd * 1e9) / 1e9, spentTokens: this.spentTokens, ...(reached ? { reached } : {}) };
  }
}
