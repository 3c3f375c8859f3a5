import type { Pricing } from './pricing.js';
import { NO_RESERVATION, outputBound, reservationFor } from './reservation.js';
import type { BudgetLimit, RefusalReason, ReplayMiss, SessionOptions, SessionUsage } from './types.js';
import type { Api, TokenUsage, UsageReading } from './usage-readers.js';

/** What admit() needs of a request to hold its worst case against the budget. */
export interface AdmissionRequest {
  api: Api;
  /** The model the request names (Gemini: the one in its path). */
  model?: string;
  json?: Record<string, unknown>;
  bodyBytes: number;
}

/** An admitted request's hold on the budget. */
export interface Ticket {
  tokens: number;
  costUsd: number;
}

export type BudgetVerdict =
  | { allowed: true; ticket: Ticket }
  | { allowed: false; reason: 'budget'; limit: BudgetLimit; message: string }
  | { allowed: false; reason: 'unpriced'; message: string };

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
  /** Requests admitted and forwarded, side requests included: what `maxRequests` limits. */
  private forwarded = 0;
  private sideRequests = 0;
  private readonly inFlight = new Set<Ticket>();
  private refusals = 0;
  private readonly refusalReasons: Partial<Record<RefusalReason, number>> = {};
  private readonly refusalExamples: string[] = [];
  private readonly answeredModels = new Map<string, number>();

  constructor(
    private readonly options: SessionOptions,
    private readonly pricing: Pricing,
  ) {}

  /**
   * Called before any request is forwarded (model calls and side requests alike). An admitted
   * request is counted against `maxRequests` and its worst case (see reservation.ts) is held
   * against the token and cost limits until settle() or release(); so concurrent requests can
   * never together pass a limit by more than providers bill beyond their reservations.
   */
  admit(request: AdmissionRequest): BudgetVerdict {
    const requestModel = request.model;
    const side = request.api === 'other';
    const worst = side ? NO_RESERVATION : reservationFor(request.api, request.json, request.bodyBytes, requestModel ?? this.options.model, this.pricing);
    const budget = this.options.budget ?? {};
    const refuse = (limit: BudgetLimit, message: string): BudgetVerdict => {
      this.budgetExceeded ??= limit;
      this.recordRefusal('budget', message);
      return { allowed: false, reason: 'budget', limit, message };
    };
    if (budget.maxRequests !== undefined && this.forwarded >= budget.maxRequests) {
      return refuse('requests', `request budget of ${budget.maxRequests} reached`);
    }
    const held = this.held();
    const used = this.tokens.inputTokens + this.tokens.outputTokens;
    if (budget.maxTokens !== undefined) {
      if (used >= budget.maxTokens) return refuse('tokens', `token budget reached (${used} of ${budget.maxTokens})`);
      if (used + held.tokens + worst.tokens > budget.maxTokens) {
        return refuse(
          'tokens',
          `token budget: this request may use up to ${worst.tokens} tokens (${outputBound(worst)}), ${budget.maxTokens - used - held.tokens} of ${budget.maxTokens} are left${held.tokens > 0 ? ' after the requests in flight' : ''}; lower the agent's output limit or raise the token budget`,
        );
      }
    }
    if (budget.maxCostUsd !== undefined) {
      const model = requestModel ?? this.options.model;
      if (!side && (!this.costKnown || model === undefined || !this.pricing.priceOf(model) || worst.costUsd === undefined)) {
        const message = `a cost budget is set but model "${model ?? '(none)'}" has no price in pricing.yaml, so it cannot be enforced`;
        this.recordRefusal('unpriced', message);
        return { allowed: false, reason: 'unpriced', message };
      }
      if (this.costUsd >= budget.maxCostUsd) return refuse('cost', `cost budget reached ($${round(this.costUsd)} of $${budget.maxCostUsd})`);
      if (worst.costUsd !== undefined && this.costUsd + held.costUsd + worst.costUsd > budget.maxCostUsd) {
        const left = round(budget.maxCostUsd - this.costUsd - held.costUsd);
        return refuse(
          'cost',
          `cost budget: this request may cost up to $${round(worst.costUsd)} (${outputBound(worst)}), $${left} of $${budget.maxCostUsd} is left${held.costUsd > 0 ? ' after the requests in flight' : ''}; lower the agent's output limit or raise the cost budget`,
        );
      }
    }
    const ticket: Ticket = { tokens: worst.tokens, costUsd: worst.costUsd ?? 0 };
    this.inFlight.add(ticket);
    this.forwarded++;
    return { allowed: true, ticket };
  }

  /** Ends a side request's hold (it carries no usage). */
  settle(ticket: Ticket): void {
    this.inFlight.delete(ticket);
  }

  /** An admitted request that was not forwarded after all (a replay miss): neither counted nor held. */
  release(ticket: Ticket): void {
    if (this.inFlight.delete(ticket)) this.forwarded--;
  }

  /** A request the gateway answered itself instead of forwarding (a path, route or model it refuses; budget refusals are counted by admit). */
  recordRefusal(reason: RefusalReason, message: string): void {
    this.refusals++;
    this.refusalReasons[reason] = (this.refusalReasons[reason] ?? 0) + 1;
    if (this.refusalExamples.length < MAX_ANOMALY_EXAMPLES && !this.refusalExamples.includes(message)) this.refusalExamples.push(message);
  }

  /** A model request that reached the upstream (or a recording); side requests are not counted here. */
  countRequest(): void {
    this.requests++;
  }

  /** A side request (model listing, token count) that was forwarded. */
  countSideRequest(): void {
    this.sideRequests++;
  }

  /** A request the run's caps (run-pool.ts) refused: the attempt ended on the budget like on its own. */
  refuseForRun(limit: BudgetLimit, message: string): void {
    this.budgetExceeded ??= limit;
    this.recordRefusal('budget', message);
  }

  /**
   * Settles the request's reservation and returns what the response was billed (nothing for an
   * upstream error or a response without usage). Upstream errors (429, 5xx) count as requests and
   * latency but carry no usage.
   */
  record(ticket: Ticket | undefined, response: MeteredResponse): Ticket {
    const billed: Ticket = { tokens: 0, costUsd: 0 };
    if (ticket) this.inFlight.delete(ticket);
    this.latencyMs += response.latencyMs;
    const answered = response.reading.model;
    if (answered !== undefined) this.answeredModels.set(answered, (this.answeredModels.get(answered) ?? 0) + 1);
    if (response.status < 200 || response.status >= 300) return billed;
    const usage = response.reading.usage;
    if (!usage) {
      this.unmeteredResponses++;
      return billed;
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
    return { tokens: usage.inputTokens + usage.outputTokens, costUsd: cost ?? 0 };
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
      ...(this.refusals > 0 ? { refused: { requests: this.refusals, reasons: { ...this.refusalReasons }, examples: [...this.refusalExamples] } } : {}),
      ...(this.answeredModels.size > 0 ? { models: Object.fromEntries(this.answeredModels) } : {}),
      ...(this.sideRequests > 0 ? { sideRequests: this.sideRequests } : {}),
    };
  }

  private held(): { tokens: number; costUsd: number } {
    let tokens = 0;
    let costUsd = 0;
    for (const ticket of this.inFlight) {
      tokens += ticket.tokens;
      costUsd += ticket.costUsd;
    }
    return { tokens, costUsd };
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
