import { afterEach, describe, expect, it } from 'vitest';
import { RunPool, type Gateway } from '../../src/infra/gateway/index.js';
import { loadPricing } from '../../src/infra/gateway/pricing.js';
import { reservationFor } from '../../src/infra/gateway/reservation.js';
import { startCountingUpstream, type CountingUpstream } from './counting-upstream.js';
import type { FakeUpstream } from './fake-upstream.js';
import { chatRequest, post, startTestGateway } from './helpers.js';

let upstream: CountingUpstream | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

const body = { ...chatRequest({ model: 'gpt-4.1' }), max_tokens: 1000 };
/** What one of these requests holds at most: the bound a run may end above its cap by. */
const worst = reservationFor('chat', body, JSON.stringify(body).length, 'gpt-4.1', loadPricing());

/** Four attempts (sessions) each sending eight requests at once, under one run pool. */
async function fourAttemptsOfEight(pool: RunPool): Promise<{ statuses: number[]; ids: string[]; gateway: Gateway }> {
  upstream = await startCountingUpstream();
  gateway = await startTestGateway({ url: upstream.url } as FakeUpstream, { runPool: pool });
  const ids = ['a1', 'a2', 'a3', 'a4'];
  const replies = ids.flatMap((id) => {
    const { baseUrls } = (gateway as Gateway).openSession(id, { model: 'gpt-4.1' });
    return Array.from({ length: 8 }, () => post(`${baseUrls.openai}/chat/completions`, body));
  });
  const statuses = (await Promise.all(replies)).map((r) => r.status);
  return { statuses, ids, gateway };
}

describe('a run cap holds over every request of every attempt', () => {
  it('--max-cost-total: 4 attempts × 8 requests at once end at most one request’s worst case above the cap', async () => {
    // Each request is billed $0.0104 and holds about $0.0106: without the pool all 32 went ($0.33).
    const cap = 0.05;
    const { statuses, ids, gateway: gw } = await fourAttemptsOfEight(new RunPool({ maxCostUsd: cap }));
    const spent = ids.reduce((sum, id) => sum + (gw.usage(id).costUsd ?? 0), 0);
    const served = ids.reduce((sum, id) => sum + gw.usage(id).requests, 0);
    expect(spent).toBeGreaterThanOrEqual(cap);
    expect(spent).toBeLessThanOrEqual(cap + (worst.costUsd as number));
    expect(upstream?.received).toHaveLength(served);
    expect(statuses.filter((s) => s === 200)).toHaveLength(served);
    expect(statuses.filter((s) => s === 402)).toHaveLength(32 - served);
    // Each refused attempt ends on the budget, named as the run's cap.
    const refused = ids.filter((id) => gw.usage(id).refused !== undefined);
    expect(refused.length).toBeGreaterThan(0);
    for (const id of refused) {
      expect(gw.usage(id).budgetExceeded).toBe('cost');
      expect(gw.usage(id).refused?.examples[0]).toMatch(/the run's cost cap is reached \(\$[\d.]+ of --max-cost-total \$0\.05\)/);
    }
  });

  it('--max-tokens-total: the same in tokens', async () => {
    const cap = 10_000;
    const { ids, gateway: gw } = await fourAttemptsOfEight(new RunPool({ maxTokens: cap }));
    const spent = ids.reduce((sum, id) => sum + gw.usage(id).inputTokens + gw.usage(id).outputTokens, 0);
    expect(spent).toBeGreaterThanOrEqual(cap);
    expect(spent).toBeLessThanOrEqual(cap + worst.tokens);
  });

  it('a request waits for the holds in flight rather than being refused while the billed total is below the cap', async () => {
    const pool = new RunPool({ maxTokens: 100 });
    const first = await pool.admit({ tokens: 150, costUsd: 0 }, 'a1');
    if (!first.ok) throw new Error('the first request is refused');
    let second: Awaited<ReturnType<RunPool['admit']>> | undefined;
    const waiting = pool.admit({ tokens: 150, costUsd: 0 }, 'a2').then((r) => (second = r));
    await new Promise((r) => setImmediate(r));
    expect(second).toBeUndefined();
    // The first was billed 40 of the 150 it held: 40 < 100, so the second goes.
    await pool.settle(first.hold, { tokens: 40, costUsd: 0 });
    await waiting;
    if (!second?.ok) throw new Error('the second request is refused');
    await pool.settle(second.hold, { tokens: 70, costUsd: 0 });
    expect(pool.reached()).toBe('tokens');
    expect(await pool.admit({ tokens: 1, costUsd: 0 })).toMatchObject({ ok: false, limit: 'tokens' });
  });
});
