import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../src/infra/gateway/index.js';
import { TEST_PRICING } from './helpers.js';

/*
 * What the gateway records of a provider that fails: per request, whether the provider answered,
 * and if not how it failed (5xx, unreachable, a body or stream cut short, a stream that ended
 * without its final event or carried an error event, silence past the stall limit), with a 429 as
 * a refusal and a client that leaves as nobody's failure. The upstream picks its behaviour from
 * the request's `model`.
 */

const chunk = (body: object): string => `data: ${JSON.stringify(body)}\n\n`;
const delta = chunk({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: 'hi' } }] });
const finish = chunk({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });

const BEHAVIOURS: Record<string, (res: ServerResponse) => void> = {
  ok: (res) =>
    json(res, 200, {
      id: 'x',
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
    }),
  'status-503': (res) => json(res, 503, { error: { message: 'overloaded' } }),
  'status-429': (res) => json(res, 429, { error: { message: 'slow down' } }),
  'status-400': (res) => json(res, 400, { error: { message: 'bad request' } }),
  'stream-ok': (res) => sse(res, [delta, finish, 'data: [DONE]\n\n'], true),
  // The connection is reset after one event.
  'stream-reset': (res) => sse(res, [delta], false),
  // The body ends cleanly, but before the final event.
  'stream-short': (res) => sse(res, [delta], true),
  'stream-error-event': (res) => sse(res, [delta, chunk({ error: { type: 'overloaded_error', message: 'Overloaded' } })], true),
  'stream-stall': (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(delta);
  },
  'headers-stall': () => undefined,
};

function json(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sse(res: ServerResponse, events: string[], end: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of events) res.write(event);
  if (end) res.end();
  else setTimeout(() => res.socket?.destroy(), 20);
}

let upstream: Server;
let gateway: Gateway;
let sessions = 0;

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const model = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string }).model;
      (BEHAVIOURS[model] ?? BEHAVIOURS['ok'])?.(res);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startGateway({
    upstreams: {
      openai: { kind: 'openai', baseUrl: `${url}/v1` },
      dead: { kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1' },
    },
    pricing: TEST_PRICING,
    stallMs: 200,
  });
});

afterAll(async () => {
  await gateway.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

/** Sends one chat request per model through a fresh session and reads each answer to its end (or break). */
async function session(models: string[], upstreamName = 'openai'): Promise<{ id: string; statuses: Array<number | 'broken'> }> {
  const id = `a${sessions++}`;
  const { baseUrls } = gateway.openSession(id);
  const statuses: Array<number | 'broken'> = [];
  for (const model of models) {
    try {
      const response = await fetch(`${baseUrls[upstreamName]}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, stream: model.startsWith('stream'), messages: [{ role: 'user', content: 'hi' }] }),
      });
      await response.text();
      statuses.push(response.status);
    } catch {
      statuses.push('broken');
    }
  }
  return { id, statuses };
}

describe('provider failures as the gateway sees them', () => {
  it('answers are no failures, and every answered request counts as one', async () => {
    const { id } = await session(['ok', 'stream-ok', 'status-400']);
    const health = gateway.provider(id);
    expect(health).toMatchObject({ name: 'openai', requests: 3, answered: 2, failed: 0, byKind: {} });
    // A 400 is the request's fault, not the provider's: the last request did not fail at the provider.
    expect(health.last).toMatchObject({ ok: false, status: 400 });
    expect(health.last?.failure).toBeUndefined();
    expect(gateway.turns(id).map((t) => t.failure)).toEqual([undefined, undefined, undefined]);
  });

  it('a 5xx, a reset stream, a stream that ends short and an error event inside a 2xx stream each fail at the provider', async () => {
    const { id, statuses } = await session(['status-503', 'stream-reset', 'stream-short', 'stream-error-event']);
    expect(statuses[0]).toBe(503);
    expect(statuses[1]).toBe('broken');
    const health = gateway.provider(id);
    expect(health).toMatchObject({ requests: 4, answered: 0, failed: 4, byKind: { status: 1, cut: 2, stream_error: 1 } });
    expect(health.last).toMatchObject({ ok: false, failure: 'stream_error', detail: expect.stringContaining('overloaded_error') });
    expect(gateway.turns(id).map((t) => t.failure)).toEqual(['status', 'cut', 'cut', 'stream_error']);
  });

  it('a provider silent past the stall limit is cut off, before its headers and mid-stream', async () => {
    const { id, statuses } = await session(['headers-stall', 'stream-stall']);
    // The gateway answers for a provider that never did, as unreachable (retryable).
    expect(statuses[0]).toBe(502);
    expect(statuses[1]).toBe('broken');
    const health = gateway.provider(id);
    expect(health).toMatchObject({ requests: 2, failed: 2, byKind: { stalled: 2 } });
    expect(health.last).toMatchObject({ failure: 'stalled', detail: 'the provider went silent past the stall limit' });
    // Neither is a turn: the stream that opened carried a delta, never its end.
    expect(gateway.turns(id).map((t) => [t.failure, t.unfinished])).toEqual([
      ['stalled', true],
      ['stalled', true],
    ]);
  });

  it('a stall, then an answer: the stalled request is unfinished (no turn), the answer is a turn and the last word', async () => {
    const { id } = await session(['stream-stall', 'stream-ok']);
    expect(gateway.provider(id).last).toMatchObject({ ok: true });
    const turns = gateway.turns(id);
    expect(turns.map((t) => t.unfinished === true)).toEqual([true, false]);
  });

  it('an unreachable provider fails every request', async () => {
    const { id, statuses } = await session(['ok', 'ok'], 'dead');
    expect(statuses).toEqual([502, 502]);
    expect(gateway.provider(id)).toMatchObject({ name: 'dead', requests: 2, failed: 2, byKind: { unreachable: 2 } });
  });

  it('a 429 is a refusal, not a failure; the time to the next request is the wait, and an answer after it ends the waiting', async () => {
    const { id } = await session(['status-429', 'ok']);
    const health = gateway.provider(id);
    expect(health).toMatchObject({ requests: 2, answered: 1, failed: 0, byKind: { rate_limited: 1 }, last: { ok: true, status: 200 } });
    expect(health.retryWaitMs).toBeGreaterThanOrEqual(0);
    expect(gateway.turns(id).map((t) => t.failure)).toEqual(['rate_limited', undefined]);
  });
});

describe('a client that gives up on a stream', () => {
  /** Reads the first event, waits `waitMs` on a provider that sends nothing more, then leaves. */
  async function leaveAfter(waitMs: number): Promise<Gateway> {
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const own = await startGateway({ upstreams: { openai: { kind: 'openai', baseUrl: `${url}/v1` } }, pricing: TEST_PRICING, stallMs: 600 });
    const { baseUrls } = own.openSession('leaver');
    const controller = new AbortController();
    const response = await fetch(`${baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stream-stall', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    controller.abort();
    await reader.read().catch(() => undefined);
    // The gateway records the exchange once it has seen the client go.
    for (let i = 0; i < 50 && own.provider('leaver').requests === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    return own;
  }

  it('at once is its own choice, nobody’s failure', async () => {
    const own = await leaveAfter(0);
    try {
      expect(own.provider('leaver')).toMatchObject({ requests: 1, answered: 0, failed: 0, byKind: {} });
    } finally {
      await own.close();
    }
  });

  it('after the provider was silent for half the stall limit gave up on a stalled provider', async () => {
    const own = await leaveAfter(350);
    try {
      expect(own.provider('leaver')).toMatchObject({ requests: 1, failed: 1, byKind: { stalled: 1 } });
    } finally {
      await own.close();
    }
  });
});
