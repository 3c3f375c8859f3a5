import { randomUUID } from 'node:crypto';

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

/** What a pool's caps are checked against: what was billed, and what requests in flight hold. */
export interface PoolTotals {
  spent: Spend;
  held: Spend;
}

/** A request's hold on the pool: its worst case, under an id the store knows it by. */
export interface PoolHold {
  id: string;
  /** The attempt whose request holds it: its billing is counted per attempt (see PoolStore.keep). */
  attemptId: string;
  worst: Spend;
}

export type PoolAdmission = { ok: true; hold: PoolHold } | { ok: false; limit: 'cost' | 'tokens'; message: string };

/**
 * Where a pool's totals live: this process (LocalPoolStore) or a Redis every worker of a
 * distributed run shares (features/distributed/redis-pool.ts). The store only keeps amounts and
 * makes a read-decide-write atomic; the rule that decides is RunPool's, in one place.
 */
export interface PoolStore {
  /** Atomically: reads the totals and, when `take(totals)` is true, adds `hold`. */
  hold(hold: PoolHold, take: (totals: PoolTotals) => boolean): Promise<{ totals: PoolTotals; taken: boolean }>;
  /** Ends a hold and adds what its request was billed to the attempt's spend. */
  settle(hold: PoolHold, billed: Spend): Promise<PoolTotals>;
  /** Raises what `attemptId` is counted as having spent to at least `spend` (an attempt a resumed run keeps): counted once however often it is kept. */
  keep(attemptId: string, spend: Spend): Promise<PoolTotals>;
  totals(): Promise<PoolTotals>;
  /** How often a waiting request looks again for holds settled or expired elsewhere; undefined when every change is made in this process. */
  readonly pollMs?: number;
}

const NOTHING: Spend = { tokens: 0, costUsd: 0 };

/**
 * One run's caps, shared by every session of the run's gateway, whichever attempt sends the request
 * (and, with a RedisPoolStore, whichever worker runs it). A model request holds its worst case
 * (reservation.ts) here before it is forwarded and gives it back for what it was billed once
 * answered. A request goes only while what was billed and what is held stay below the cap;
 * otherwise it waits for requests in flight to settle, and is refused once the billed amount alone
 * reaches the cap. So however many attempts send however many requests at once, a run ends above
 * its cap by at most one request's worst case (the last one let through below it), as long as
 * providers bill no more than the reservation bounds.
 */
export class RunPool {
  private last: PoolTotals = { spent: { ...NOTHING }, held: { ...NOTHING } };
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limits: RunPoolLimits,
    private readonly store: PoolStore = new LocalPoolStore(),
  ) {}

  /** Usage billed outside this pool's requests: an attempt a resumed run keeps (counted once per attempt). */
  async keep(attemptId: string, spend: Spend): Promise<void> {
    this.last = await this.store.keep(attemptId, spend);
  }

  /** Reads the totals again (another process may have billed meanwhile); then reached() tells. */
  async refresh(): Promise<void> {
    this.last = await this.store.totals();
  }

  /** The cap the billed usage alone had reached when last seen, if any: nothing more may start. */
  reached(): 'cost' | 'tokens' | undefined {
    return this.reachedBy(this.last.spent);
  }

  /** Holds `worst` once it may go: waits while requests in flight fill the cap, refuses when billing alone did. */
  async admit(worst: Spend, attemptId = ''): Promise<PoolAdmission> {
    const hold: PoolHold = { id: randomUUID(), attemptId, worst };
    for (;;) {
      // Listening before reading: a settle between the read and the wait still wakes it.
      const wake = this.nextWake();
      const { totals, taken } = await this.store.hold(hold, (t) => this.reachedBy(t.spent) === undefined && this.below(addSpend(t.spent, t.held)));
      this.last = totals;
      const reached = this.reachedBy(totals.spent);
      if (reached !== undefined || taken) {
        wake.cancel();
        return reached !== undefined ? { ok: false, limit: reached, message: this.reachedMessage(reached) } : { ok: true, hold };
      }
      await wake.woken;
    }
  }

  /** Ends a hold: `billed` is what the request cost (nothing when it was not forwarded or carried no usage). */
  async settle(hold: PoolHold, billed: Spend = NOTHING): Promise<void> {
    try {
      this.last = await this.store.settle(hold, billed);
    } finally {
      for (const resume of this.waiting.splice(0)) resume();
    }
  }

  /** Settles on a settle in this process, or after the store's poll interval (a settle, or a dead holder's lease ending, elsewhere). */
  private nextWake(): { woken: Promise<void>; cancel(): void } {
    let resume: () => void = () => undefined;
    const woken = new Promise<void>((r) => (resume = r));
    const poll = this.store.pollMs === undefined ? undefined : setTimeout(() => wake(), this.store.pollMs);
    const wake = (): void => {
      if (poll) clearTimeout(poll);
      const at = this.waiting.indexOf(wake);
      if (at >= 0) this.waiting.splice(at, 1);
      resume();
    };
    this.waiting.push(wake);
    return { woken, cancel: wake };
  }

  private reachedBy(spent: Spend): 'cost' | 'tokens' | undefined {
    if (this.limits.maxCostUsd !== undefined && spent.costUsd >= this.limits.maxCostUsd) return 'cost';
    if (this.limits.maxTokens !== undefined && spent.tokens >= this.limits.maxTokens) return 'tokens';
    return undefined;
  }

  private below(total: Spend): boolean {
    return this.reachedBy(total) === undefined;
  }

  private reachedMessage(limit: 'cost' | 'tokens'): string {
    return limit === 'cost'
      ? `the run's cost cap is reached ($${round(this.last.spent.costUsd)} of --max-cost-total $${this.limits.maxCostUsd})`
      : `the run's token cap is reached (${this.last.spent.tokens} of --max-tokens-total ${this.limits.maxTokens})`;
  }
}

/** A pool whose requests all go through this process's gateway: a local run. */
export class LocalPoolStore implements PoolStore {
  private spent: Spend = { ...NOTHING };
  private readonly holds = new Map<string, Spend>();
  private readonly byAttempt = new Map<string, Spend>();

  hold(hold: PoolHold, take: (totals: PoolTotals) => boolean): Promise<{ totals: PoolTotals; taken: boolean }> {
    const taken = take(this.now());
    if (taken) this.holds.set(hold.id, hold.worst);
    return Promise.resolve({ totals: this.now(), taken });
  }

  settle(hold: PoolHold, billed: Spend): Promise<PoolTotals> {
    this.holds.delete(hold.id);
    this.addTo(hold.attemptId, billed);
    return Promise.resolve(this.now());
  }

  keep(attemptId: string, spend: Spend): Promise<PoolTotals> {
    const counted = this.byAttempt.get(attemptId) ?? NOTHING;
    this.addTo(attemptId, { tokens: Math.max(0, spend.tokens - counted.tokens), costUsd: Math.max(0, spend.costUsd - counted.costUsd) });
    return Promise.resolve(this.now());
  }

  totals(): Promise<PoolTotals> {
    return Promise.resolve(this.now());
  }

  private addTo(attemptId: string, spend: Spend): void {
    this.spent = addSpend(this.spent, spend);
    this.byAttempt.set(attemptId, addSpend(this.byAttempt.get(attemptId) ?? NOTHING, spend));
  }

  private now(): PoolTotals {
    let held = { ...NOTHING };
    for (const h of this.holds.values()) held = addSpend(held, h);
    return { spent: { ...this.spent }, held };
  }
}

export function addSpend(a: Spend, b: Spend): Spend {
  return { tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd };
}

function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
