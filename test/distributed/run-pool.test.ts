import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisPoolStore } from '../../src/features/distributed/redis-pool.js';
import { parseQueueUrl } from '../../src/features/distributed/index.js';
import { RunPool, type Gateway } from '../../src/infra/gateway/index.js';
import { loadPricing } from '../../src/infra/gateway/pricing.js';
import { reservationFor } from '../../src/infra/gateway/reservation.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startCountingUpstream, type CountingUpstream } from '../gateway/counting-upstream.js';
import type { FakeUpstream } from '../gateway/fake-upstream.js';
import { chatRequest, post, startTestGateway } from '../gateway/helpers.js';

let redis: TestRedis;
let upstream: CountingUpstream | undefined;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  redis = await startRedis({ persistence: false });
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
  await upstream?.close();
  upstream = undefined;
});

let runs = 0;
/** Renewed every third of it: a loaded machine's timers would have to lag a second to lose one. */
const LONG_LEASE_MS = 1500;
/** A store on the test's Redis for a run of its own, closed after the test. */
function store(runId: string, leaseMs?: number): RedisPoolStore {
  const s = RedisPoolStore.open(parseQueueUrl('--queue', redis.url), runId, leaseMs);
  opened.push(s);
  return s;
}

const body = { ...chatRequest({ model: 'gpt-4.1' }), max_tokens: 1000 };
/** What one of these requests holds at most: the bound a run may end above its cap by. */
const worst = reservationFor('chat', body, JSON.stringify(body).length, 'gpt-4.1', loadPricing());

/** Two workers (a gateway and a pool store each, one run in Redis), each running two attempts that send eight requests at once. */
async function twoWorkersOfTwoAttemptsOfEight(limits: {
  maxCostUsd?: number;
  maxTokens?: number;
}): Promise<{ billed: number; billedTokens: number; statuses: number[]; pool: RedisPoolStore }> {
  const runId = `pool-${++runs}`;
  upstream = await startCountingUpstream();
  const gateways: Gateway[] = [];
  for (let w = 0; w < 2; w++) {
    const gateway = await startTestGateway({ url: upstream.url } as FakeUpstream, { runPool: new RunPool(limits, store(runId)) });
    opened.push(gateway);
    gateways.push(gateway);
  }
  const sessions = gateways.flatMap((gateway, w) => ['a', 'b'].map((n) => ({ gateway, id: `w${w}-${n}` })));
  const replies = sessions.flatMap(({ gateway, id }) => {
    const { baseUrls } = gateway.openSession(id, { model: 'gpt-4.1' });
    return Array.from({ length: 8 }, () => post(`${baseUrls.openai}/chat/completions`, body));
  });
  const statuses = (await Promise.all(replies)).map((r) => r.status);
  const billed = sessions.reduce((sum, { gateway, id }) => sum + (gateway.usage(id).costUsd ?? 0), 0);
  const billedTokens = sessions.reduce((sum, { gateway, id }) => sum + gateway.usage(id).inputTokens + gateway.usage(id).outputTokens, 0);
  return { billed, billedTokens, statuses, pool: store(runId) };
}

describe("a distributed run's caps, held in Redis over every worker's requests", () => {
  it('--max-cost-total: 2 workers × 2 attempts × 8 requests at once end at most one request’s worst case above the cap', async () => {
    // Each request is billed $0.0104 and holds about $0.0106: 32 of them without the pool ($0.33).
    const cap = 0.05;
    const { billed, statuses, pool } = await twoWorkersOfTwoAttemptsOfEight({ maxCostUsd: cap });
    expect(billed).toBeGreaterThanOrEqual(cap);
    expect(billed).toBeLessThanOrEqual(cap + (worst.costUsd as number));
    expect(statuses.filter((s) => s === 200).length + statuses.filter((s) => s === 402).length).toBe(32);
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0);
    // Redis holds what both workers billed, and no hold outlives its request.
    const totals = await pool.totals();
    expect(totals.spent.costUsd).toBeCloseTo(billed, 9);
    expect(totals.held).toEqual({ tokens: 0, costUsd: 0 });
  });

  it('--max-tokens-total: the same in tokens', async () => {
    const cap = 10_000;
    const { billedTokens } = await twoWorkersOfTwoAttemptsOfEight({ maxTokens: cap });
    expect(billedTokens).toBeGreaterThanOrEqual(cap);
    expect(billedTokens).toBeLessThanOrEqual(cap + worst.tokens);
  });

  it("a dead worker's hold stops counting once its lease ends, so the others go on", async () => {
    const limits = { maxTokens: 100 };
    const dead = new RunPool(limits, store('pool-dead', 300));
    const held = await dead.admit({ tokens: 150, costUsd: 0 }, 'a1');
    expect(held.ok).toBe(true);
    // The worker dies mid-request: nothing settles its hold and nothing renews its lease.
    await (opened.pop() as RedisPoolStore).close();
    const alive = new RunPool(limits, store('pool-dead', 300));
    const next = await alive.admit({ tokens: 150, costUsd: 0 }, 'a2');
    expect(next.ok).toBe(true);
  });

  it('a hold is renewed while its request runs: a request longer than a lease keeps the others waiting', async () => {
    const limits = { maxTokens: 100 };
    const slow = new RunPool(limits, store('pool-long', LONG_LEASE_MS));
    const first = await slow.admit({ tokens: 150, costUsd: 0 }, 'a1');
    if (!first.ok) throw new Error('refused');
    let second: Awaited<ReturnType<RunPool['admit']>> | undefined;
    const other = new RunPool(limits, store('pool-long', LONG_LEASE_MS));
    const waiting = other.admit({ tokens: 150, costUsd: 0 }, 'a2').then((r) => (second = r));
    // The lease's end moves forward while the request runs, and the hold still counts after its first lease ended.
    const leases = async (): Promise<number> =>
      Number(
        spawnSync('redis-cli', ['-p', String(redis.port), 'zrange', 'crucible:pool:pool-long:leases', '0', '-1', 'withscores'], {
          encoding: 'utf8',
        }).stdout.split('\n')[1],
      );
    const firstEnd = await leases();
    let end = firstEnd;
    while (end <= firstEnd + LONG_LEASE_MS) {
      await new Promise((r) => setTimeout(r, 50));
      end = await leases();
    }
    expect((await store('pool-long').totals()).held.tokens).toBe(150);
    expect(second).toBeUndefined();
    await slow.settle(first.hold, { tokens: 120, costUsd: 0 });
    await waiting;
    // Billing alone reached the cap: the waiting request is refused, not let through.
    expect(second).toMatchObject({ ok: false, limit: 'tokens' });
  });

  it("a kept attempt's spend counts once, however often a resumed coordinator keeps it, and not again when its requests were billed here", async () => {
    const pool = store('pool-kept');
    await pool.keep('a1', { tokens: 500, costUsd: 0.01 });
    await pool.keep('a1', { tokens: 500, costUsd: 0.01 });
    const run = new RunPool({ maxTokens: 10_000 }, pool);
    const admitted = await run.admit({ tokens: 10, costUsd: 0 }, 'a2');
    if (!admitted.ok) throw new Error('refused');
    await run.settle(admitted.hold, { tokens: 300, costUsd: 0.002 });
    await pool.keep('a2', { tokens: 300, costUsd: 0.002 });
    const totals = await pool.totals();
    expect(totals.spent.tokens).toBe(800);
    expect(totals.spent.costUsd).toBeCloseTo(0.012, 12);
  });
});
