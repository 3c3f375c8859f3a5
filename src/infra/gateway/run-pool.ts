/** A run's caps over all its attempts' model requests (`--max-cost-total`, `--max-tokens-total`). */
export interface RunPoolLimits {
  maxCostUsd?: number;
  /** Input + output tokens. */
  maxTokens?: number;
}

/** An amount of tokens and dollars: a request's worst case, or what it was billed. */
export interface Spend {
  tokens: number;
  costUsd: number;
}

export type PoolAdmission = { ok: true; hold: Spend } | { ok: false; limit: 'cost' | 'tokens'; message: string };

const NOTHING: Spend = { tokens: 0, costUsd: 0 };

/**
 * One run's caps, shared by every session of the run's gateway, whichever attempt sends the request.
 * A model request holds its worst case (reservation.ts) here before it is forwarded and gives it
 * back for what it was billed once answered. A request goes only while what was billed and what is
 * held stay below the cap; otherwise it waits for requests in flight to settle, and is refused once
 * the billed amount alone reaches the cap. So however many attempts send however many requests at
 * once, a run ends above its cap by at most one request's worst case (the last one let through
 * below it), as long as providers bill no more than the reservation bounds.
 */
export class RunPool {
  private spent: Spend = { ...NOTHING };
  private held: Spend = { ...NOTHING };
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limits: RunPoolLimits) {}

  /** Usage billed outside this pool's requests: attempts a resumed run keeps. */
  addSpent(spend: Spend): void {
    this.spent = add(this.spent, spend);
  }

  /** The cap the billed usage alone has reached, if any: nothing more may start. */
  reached(): 'cost' | 'tokens' | undefined {
    if (this.limits.maxCostUsd !== undefined && this.spent.costUsd >= this.limits.maxCostUsd) return 'cost';
    if (this.limits.maxTokens !== undefined && this.spent.tokens >= this.limits.maxTokens) return 'tokens';
    return undefined;
  }

  /** Holds `worst` once it may go: waits while requests in flight fill the cap, refuses when billing alone did. */
  async admit(worst: Spend): Promise<PoolAdmission> {
    for (;;) {
      const reached = this.reached();
      if (reached !== undefined) return { ok: false, limit: reached, message: this.reachedMessage(reached) };
      if (this.below(add(this.spent, this.held))) {
        this.held = add(this.held, worst);
        return { ok: true, hold: worst };
      }
      await new Promise<void>((resume) => this.waiting.push(resume));
    }
  }

  /** Ends a hold: `billed` is what the request cost (nothing when it was not forwarded or carried no usage). */
  settle(hold: Spend, billed: Spend = NOTHING): void {
    this.held = { tokens: Math.max(0, this.held.tokens - hold.tokens), costUsd: Math.max(0, this.held.costUsd - hold.costUsd) };
    this.spent = add(this.spent, billed);
    for (const resume of this.waiting.splice(0)) resume();
  }

  private below(total: Spend): boolean {
    if (this.limits.maxCostUsd !== undefined && total.costUsd >= this.limits.maxCostUsd) return false;
    if (this.limits.maxTokens !== undefined && total.tokens >= this.limits.maxTokens) return false;
    return true;
  }

  private reachedMessage(limit: 'cost' | 'tokens'): string {
    return limit === 'cost'
      ? `the run's cost cap is reached ($${round(this.spent.costUsd)} of --max-cost-total $${this.limits.maxCostUsd})`
      : `the run's token cap is reached (${this.spent.tokens} of --max-tokens-total ${this.limits.maxTokens})`;
  }
}

function add(a: Spend, b: Spend): Spend {
  return { tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd };
}

function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
