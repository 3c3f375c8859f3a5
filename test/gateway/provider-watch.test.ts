import { describe, expect, it } from 'vitest';
import { ProviderWatch, providerFailureOf } from '../../src/infra/gateway/provider-watch.js';
import { providerFailure } from '../../src/domain/grading/provider-failure.js';

describe('ProviderWatch', () => {
  it('measures a wait from a failed or refused answer to the next request, and none after an answer', () => {
    const watch = new ProviderWatch();
    watch.requestArrived(0);
    watch.answerEnded(0, 'openai', { status: 429 }, 100);
    // The agent waited 1.9 s after the 429 (retry-after, or its own backoff).
    watch.requestArrived(2000);
    watch.answerEnded(1, 'openai', { status: 503 }, 2100);
    watch.requestArrived(2600);
    watch.answerEnded(2, 'openai', { status: 200 }, 3000);
    // After an answer the agent worked (tools, thinking): not a wait.
    watch.requestArrived(9000);
    watch.answerEnded(3, 'openai', { status: 200 }, 9500);
    expect(watch.snapshot()).toEqual({
      name: 'openai',
      requests: 4,
      answered: 2,
      failed: 1,
      byKind: { rate_limited: 1, status: 1 },
      retryWaitMs: 1900 + 500,
      last: { seq: 3, ok: true, status: 200 },
    });
  });

  it('keeps the last word of a finished request when the client leaves the next one unfinished: a stall the agent retried and was stopped waiting on is the provider’s', () => {
    const watch = new ProviderWatch();
    watch.requestArrived(0);
    watch.answerEnded(0, 'openai', { status: 200 }, 100);
    watch.requestArrived(200);
    watch.answerEnded(1, 'openai', { status: 200, stalled: true, detail: 'the provider went silent past the stall limit' }, 5200);
    // The agent's retry, still waiting on a silent stream when the harness stopped the agent.
    watch.requestArrived(5300);
    watch.answerEnded(2, 'openai', { status: 200, clientGone: true }, 6000);
    const health = watch.snapshot();
    expect(health).toMatchObject({ requests: 3, answered: 1, failed: 1, last: { seq: 1, ok: false, failure: 'stalled' } });
    expect(providerFailure(health)).toContain('stalled');
  });

  it('tells the provider’s failures from refusals, the request’s faults and a client that left', () => {
    expect(providerFailureOf({ status: 500 })).toBe('status');
    expect(providerFailureOf({ status: 502, unreachable: true })).toBe('unreachable');
    expect(providerFailureOf({ status: 200, stalled: true })).toBe('stalled');
    expect(providerFailureOf({ status: 200, brokeOff: true })).toBe('cut');
    expect(providerFailureOf({ status: 200, stream: 'cut' })).toBe('cut');
    expect(providerFailureOf({ status: 200, stream: 'error' })).toBe('stream_error');
    expect(providerFailureOf({ status: 429 })).toBe('rate_limited');
    expect(providerFailureOf({ status: 400 })).toBeUndefined();
    expect(providerFailureOf({ status: 200, clientGone: true, brokeOff: false })).toBeUndefined();
    expect(providerFailureOf({ status: 200 })).toBeUndefined();
  });
});
