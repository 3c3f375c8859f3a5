import { Redis } from 'ioredis';
import { addSpend, type PoolHold, type PoolStore, type PoolTotals, type Spend } from '../../infra/gateway/index.js';
import { BLOB_TTL_SECONDS, poolKeys } from './keys.js';
import { redisOptions, type QueueAddress } from './url.js';

/** How long a hold lives without its holder renewing it: a dead worker's holds stop counting after this long. */
export const POOL_LEASE_MS = 30_000;
/** How often a request waiting on the cap looks again for holds settled on other workers. */
const POLL_MS = 250;

/**
 * A run pool's totals in Redis, shared by the coordinator and every worker of a distributed run, so
 * the run's caps hold over every request of every attempt on every machine (RunPool's rule, read
 * and written in one WATCH/MULTI transaction, retried when another process wrote in between).
 *
 * - `spent`: billed tokens and dollars in all, and per attempt (`t:<id>`, `c:<id>`), so that a
 *   resumed coordinator counting the attempts it keeps counts each once.
 * - `holds`: each request in flight's worst case; `leases`: when each expires (Redis's clock). The
 *   holder renews its lease while the request runs; a worker that dies stops renewing, and its
 *   holds stop counting one lease later, so the cap is never blocked for good by a dead machine.
 *
 * WATCH belongs to a connection: the store has its own, and runs its transactions one at a time.
 */
export class RedisPoolStore implements PoolStore {
  readonly pollMs = POLL_MS;
  private readonly keys: ReturnType<typeof poolKeys>;
  private chain: Promise<unknown> = Promise.resolve();
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  private constructor(
    private readonly redis: Redis,
    runId: string,
    private readonly leaseMs: number,
  ) {
    this.keys = poolKeys(runId);
  }

  static open(address: QueueAddress, runId: string, leaseMs = POOL_LEASE_MS): RedisPoolStore {
    const redis = new Redis(redisOptions(address));
    redis.on('error', () => undefined); // ioredis reconnects; commands wait.
    return new RedisPoolStore(redis, runId, leaseMs);
  }

  hold(hold: PoolHold, take: (totals: PoolTotals) => boolean): Promise<{ totals: PoolTotals; taken: boolean }> {
    return this.serially(async () => {
      for (;;) {
        await this.redis.watch(this.keys.spent, this.keys.holds, this.keys.leases);
        const { totals, now, expired } = await this.read();
        const taken = take(totals);
        const write = this.redis.multi();
        if (expired.length > 0) write.hdel(this.keys.holds, ...expired).zrem(this.keys.leases, ...expired);
        if (taken) write.hset(this.keys.holds, hold.id, `${hold.worst.tokens} ${hold.worst.costUsd}`).zadd(this.keys.leases, now + this.leaseMs, hold.id);
        this.expire(write);
        // null: another process wrote to the pool after the read; read and decide again.
        if ((await write.exec()) === null) continue;
        if (taken) this.renew(hold.id);
        return { totals: taken ? { spent: totals.spent, held: addSpend(totals.held, hold.worst) } : totals, taken };
      }
    });
  }

  settle(hold: PoolHold, billed: Spend): Promise<PoolTotals> {
    this.stopRenewing(hold.id);
    return this.serially(async () => {
      const write = this.redis.multi().hdel(this.keys.holds, hold.id).zrem(this.keys.leases, hold.id);
      this.add(write, hold.attemptId, billed);
      this.expire(write);
      await write.exec();
      return (await this.read()).totals;
    });
  }

  keep(attemptId: string, spend: Spend): Promise<PoolTotals> {
    return this.serially(async () => {
      for (;;) {
        await this.redis.watch(this.keys.spent);
        const [tokens, usd] = await this.redis.hmget(this.keys.spent, `t:${attemptId}`, `c:${attemptId}`);
        const more = { tokens: Math.max(0, spend.tokens - Number(tokens ?? 0)), costUsd: Math.max(0, spend.costUsd - Number(usd ?? 0)) };
        const write = this.redis.multi();
        this.add(write, attemptId, more);
        this.expire(write);
        if ((await write.exec()) === null) continue;
        return (await this.read()).totals;
      }
    });
  }

  totals(): Promise<PoolTotals> {
    return this.serially(async () => (await this.read()).totals);
  }

  /** Removes the run's pool (a completed run). */
  remove(): Promise<void> {
    return this.serially(async () => {
      await this.redis.del(this.keys.spent, this.keys.holds, this.keys.leases);
    });
  }

  async close(): Promise<void> {
    for (const id of [...this.renewals.keys()]) this.stopRenewing(id);
    await this.chain.catch(() => undefined);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async read(): Promise<{ totals: PoolTotals; now: number; expired: string[] }> {
    const now = await this.now();
    const [tokens, usd] = await this.redis.hmget(this.keys.spent, 'tokens', 'usd');
    const holds = await this.redis.hgetall(this.keys.holds);
    const leases = await this.redis.zrange(this.keys.leases, 0, -1, 'WITHSCORES');
    const until = new Map<string, number>();
    for (let i = 0; i + 1 < leases.length; i += 2) until.set(leases[i] as string, Number(leases[i + 1]));
    let held: Spend = { tokens: 0, costUsd: 0 };
    const expired: string[] = [];
    for (const [id, amount] of Object.entries(holds)) {
      if ((until.get(id) ?? 0) <= now) {
        expired.push(id);
        continue;
      }
      const [t, c] = amount.split(' ');
      held = addSpend(held, { tokens: Number(t), costUsd: Number(c) });
    }
    return { totals: { spent: { tokens: Number(tokens ?? 0), costUsd: Number(usd ?? 0) }, held }, now, expired };
  }

  /** Redis's clock in milliseconds: every process of the run reads the same one, whatever its own says. */
  private async now(): Promise<number> {
    const [seconds, micros] = await this.redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  private add(write: ReturnType<Redis['multi']>, attemptId: string, spend: Spend): void {
    write
      .hincrby(this.keys.spent, 'tokens', Math.round(spend.tokens))
      .hincrbyfloat(this.keys.spent, 'usd', spend.costUsd)
      .hincrby(this.keys.spent, `t:${attemptId}`, Math.round(spend.tokens))
      .hincrbyfloat(this.keys.spent, `c:${attemptId}`, spend.costUsd);
  }

  /** An abandoned run's pool goes with its other bookkeeping. */
  private expire(write: ReturnType<Redis['multi']>): void {
    for (const key of [this.keys.spent, this.keys.holds, this.keys.leases]) write.expire(key, BLOB_TTL_SECONDS);
  }

  /** The lease is renewed while the request runs (only while the hold is still there: a settled hold is not brought back). */
  private renew(id: string): void {
    const timer = setInterval(
      () =>
        void this.serially(async () => {
          await this.redis.zadd(this.keys.leases, 'XX', (await this.now()) + this.leaseMs, id);
        }).catch(() => undefined),
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    this.renewals.set(id, timer);
  }

  private stopRenewing(id: string): void {
    clearInterval(this.renewals.get(id));
    this.renewals.delete(id);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
