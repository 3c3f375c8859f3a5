import type { Pricing } from './pricing.js';
import type { BudgetLimit, ReplayMiss, SessionOptions, SessionUsage } from './types.js';
import type { TokenUsage, UsageReading } from './usage-readers.js';

export type BudgetVerdict =
  { allowed: true } | { allowed: false; reason: 'budget'; limit: BudgetLimit; message: string } | { allowed: false; reason: 'unpriced'; message: string };

export interface MeteredResponse {
  status: number;
  /** From the request body, used for pricing when the response names no known model. */
  requestModel?: string;
  reading: UsageReading;
  latencyMs: number;
}

/** How many distinct usage contradictions a session keeps as examples. */
const MAX_ANOMALY_EXAMPLES = 3;

/** One session's running totals and its budget. */
export class SessionMeter {
  private readonly tokens: TokenUsage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
  private requests = 0;
  private latencyMs = 0;
  private costUsd = 0;
  private costKnown = true;
  private unmeteredResponses = 0;
  private budgetExceeded: BudgetLimit | undefined;
  private readonly misses: ReplayMiss[] = [];
  private anomalousResponses = 0;
  private readonly anomalyExamples: string[] = [];
  private looseMatches = 0;

  constructor(
    private readonly options: SessionOptions,
    private readonly pricing: Pricing,
  ) {}

  /**
   * Called before a model request is forwarded; does not count it. Requests in flight are not counted against tokens
   * or cost yet, so concurrent requests can overshoot those two limits by one response each.
   */
  admit(requestModel: string | undefined): BudgetVerdict {
    const budget = this.options.budget ?? {};
    const refuse = (limit: BudgetLimit, message: string): BudgetVerdict => {
      this.budgetExceeded ??= limit;
      return { allowed: false, reason: 'budget', limit, message };
    };
    if (budget.maxRequests !== undefined && this.requests >= budget.maxRequests) {
      return refuse('requests', `request budget of ${budget.maxRequests} reached`);
    }
    const used = this.tokens.inputTokens + this.tokens.outputTokens;
    if (budget.maxTokens !== undefined && used >= budget.maxTokens) {
      return refuse('tokens', `token budget reached (${used} of ${budget.maxTokens})`);
    }
    if (budget.maxCostUsd !== undefined) {
      const model = requestModel ?? this.options.model;
      if (!this.costKnown || model === undefined || !this.pricing.priceOf(model)) {
        return {
          allowed: false,
          reason: 'unpriced',
          message: `a cost budget is set but model "${model ?? '(none)'}" has no price in pricing.yaml, so it cannot be enforced`,
        };
      }
      if (this.costUsd >= budget.maxCostUsd) {
        return refuse('cost', `cost budget reached ($${round(this.costUsd)} of $${budget.maxCostUsd})`);
      }
    }
    return { allowed: true };
  }

  /** Separate from admit() so a replay miss or a refused route is not counted; call it in the same tick. */
  countRequest(): void {
    this.requests++;
  }

  /** Upstream errors (429, 5xx) count as requests and latency but carry no usage. */
  record(response: MeteredResponse): void {
    this.latencyMs += response.latencyMs;
    if (response.status < 200 || response.status >= 300) return;
    const usage = response.reading.usage;
    if (!usage) {
      this.unmeteredResponses++;
      return;
    }
    for (const key of Object.keys(this.tokens) as Array<keyof TokenUsage>) this.tokens[key] += usage[key];
    // Counts that contradict each other are kept as reported and said so, never quietly fixed.
    const anomalies = response.reading.anomalies ?? [];
    if (anomalies.length > 0) this.anomalousResponses++;
    for (const anomaly of anomalies) {
      if (this.anomalyExamples.length < MAX_ANOMALY_EXAMPLES && !this.anomalyExamples.includes(anomaly)) this.anomalyExamples.push(anomaly);
    }
    const cost = this.priceFor([response.reading.model, response.requestModel, this.options.model], usage);
    if (cost === undefined) this.costKnown = false;
    else this.costUsd += cost;
  }

  recordMiss(miss: ReplayMiss): void {
    this.misses.push(miss);
  }

  recordLooseMatch(): void {
    this.looseMatches++;
  }

  snapshot(): SessionUsage {
    return {
      ...this.tokens,
      requests: this.requests,
      ...(this.costKnown ? { costUsd: round(this.costUsd) } : {}),
      latencyMs: Math.round(this.latencyMs),
      ...(this.budgetExceeded ? { budgetExceeded: this.budgetExceeded } : {}),
      ...(this.anomalousResponses > 0 ? { anomalies: { responses: this.anomalousResponses, examples: [...this.anomalyExamples] } } : {}),
      unmeteredResponses: this.unmeteredResponses,
      replayMisses: [...this.misses],
      replayLooseMatches: this.looseMatches,
    };
  }

  /** The served model's price, else the requested one's (snapshots and routers rename models). */
  private priceFor(models: Array<string | undefined>, usage: TokenUsage): number | undefined {
    const empty = usage.inputTokens === 0 && usage.outputTokens === 0;
    for (const model of models) {
      if (model === undefined) continue;
      const cost = this.pricing.costOf(model, usage);
      if (cost !== undefined) return cost;
    }
    return empty ? 0 : undefined;
  }
}

/** Sums of float prices drift in the last bits; nano-dollars are plenty. */
function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
