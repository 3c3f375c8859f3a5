import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/infra/gateway/index.js';
import { startCountingUpstream, type CountingUpstream } from './counting-upstream.js';
import { chatRequest, messagesRequest, post, startTestGateway } from './helpers.js';
import { rawRequest } from './raw-request.js';
import type { FakeUpstream } from './fake-upstream.js';

let upstream: CountingUpstream;
let gateway: Gateway;

beforeAll(async () => {
  upstream = await startCountingUpstream();
  // The counting upstream stands in for every provider: whatever reaches it, by any path, is counted.
  gateway = await startTestGateway({ url: upstream.url } as FakeUpstream);
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

/** Where a session's OpenAI SDK would send its requests, without the gateway's origin. */
function sessionPath(id: string, options: Parameters<Gateway['openSession']>[1] = {}): string {
  const { baseUrls } = gateway.openSession(id, options);
  return new URL(baseUrls.openai).pathname.replace(/\/v1$/, '');
}

/** Paths a URL resolver would turn into /v1/chat/completions, or that are not what they seem. */
const REWRITTEN = [
  ['dot segment', '/v1/./chat/completions', 'dot_segment'],
  ['dot-dot segment', '/v1/x/../chat/completions', 'dot_segment'],
  ['encoded dot', '/v1/%2e/chat/completions', 'dot_segment'],
  ['encoded dot-dot, upper case', '/v1/x/%2E%2E/chat/completions', 'dot_segment'],
  ['half-encoded dot-dot', '/v1/x/.%2e/chat/completions', 'dot_segment'],
  ['dot segment before the version', '/./v1/chat/completions', 'dot_segment'],
  ['encoded slash', '/v1/chat%2fcompletions', 'encoded_separator'],
  ['encoded backslash', '/v1/chat%5Ccompletions', 'encoded_separator'],
  ['backslash', '/v1\\chat\\completions', 'bad_character'],
  ['repeated slash', '/v1//chat/completions', 'empty_segment'],
  ['malformed escape', '/v1/chat/completions%zz', 'bad_encoding'],
] as const;

describe('what is forwarded is what is metered', () => {
  it.each(REWRITTEN)('refuses a %s (%s) with a clear error, counts the refusal, forwards nothing', async (_name, path, reason) => {
    const id = `path-${path}`;
    const reply = await rawRequest(gateway.url, 'POST', `${sessionPath(id)}${path}`, chatRequest());
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('bad_path');
    expect(reply.text).toContain('send the plain path');
    expect(upstream.received).toEqual([]);
    expect(gateway.usage(id).refused).toMatchObject({ requests: 1, reasons: { [reason]: 1 } });
    expect(gateway.usage(id).requests).toBe(0);
  });

  it('refuses a dot segment that climbs out of the session prefix and counts it on the session it names', async () => {
    const prefix = sessionPath('climb');
    const reply = await rawRequest(gateway.url, 'POST', `${prefix}/../../s/x/openai/v1/chat/completions`, chatRequest());
    expect(reply.status).toBe(400);
    expect(upstream.received).toEqual([]);
    expect(gateway.usage('climb').refused?.reasons).toEqual({ dot_segment: 1 });
  });

  it.each([
    ['POST', '/v1/completions'],
    ['POST', '/v1/embeddings'],
    ['GET', '/v1/files'],
    ['POST', '/v1/chat/completions/'],
    ['DELETE', '/v1/models/gpt-4o-mini'],
  ])('refuses %s %s, a route it does not meter, and never forwards it', async (method, path) => {
    const id = `route-${method}-${path}`;
    const reply = await rawRequest(gateway.url, method, `${sessionPath(id)}${path}`, method === 'GET' ? undefined : chatRequest());
    expect(reply.status).toBe(404);
    expect(reply.text).toContain('route_not_allowed');
    expect(upstream.received).toEqual([]);
    expect(gateway.usage(id).refused?.reasons).toEqual({ route_not_allowed: 1 });
  });

  it('with a turn limit of 2, no more than 2 requests reach the upstream whatever their path', async () => {
    const prefix = sessionPath('two-turns', { budget: { maxRequests: 2 } });
    const paths = [
      ...REWRITTEN.map(([, path]) => ['POST', path] as const),
      ['GET', '/v1/models'],
      ['POST', '/v1/chat/completions'],
      ['POST', '/v1/chat/completions'],
      ['POST', '/v1/chat/completions?x=1'],
      ['POST', '/v1/./chat/completions'],
      ['GET', '/v1/models'],
    ] as const;
    const statuses: number[] = [];
    for (const [method, path] of paths) {
      statuses.push((await rawRequest(gateway.url, method, `${prefix}${path}`, method === 'GET' ? undefined : chatRequest())).status);
    }
    expect(upstream.received).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    const usage = gateway.usage('two-turns');
    expect(usage).toMatchObject({ requests: 1, sideRequests: 1, budgetExceeded: 'requests' });
    expect(usage.refused?.requests).toBe(paths.length - 2);
  });
});

describe('the model is pinned', () => {
  it("refuses a request for another model than the attempt's, forwards nothing, and counts the refusal", async () => {
    const { baseUrls } = gateway.openSession('pinned', { model: 'gpt-4o-mini' });
    const other = await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: 'gpt-4.1' }));
    expect(other.status).toBe(400);
    expect(JSON.parse(other.text)).toMatchObject({
      error: { code: 'model_not_allowed', message: expect.stringContaining("this attempt's model is gpt-4o-mini") },
    });
    expect(other.headers.get('x-should-retry')).toBe('false');
    const unnamed = await post(`${baseUrls.openai}/chat/completions`, { ...chatRequest(), model: undefined });
    expect(unnamed.status).toBe(400);
    expect(upstream.received).toEqual([]);
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: 'gpt-4o-mini' }))).status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const usage = gateway.usage('pinned');
    expect(usage.refused?.reasons).toEqual({ model_not_allowed: 2 });
    expect(usage.models).toEqual({ 'gpt-4o-mini': 1 });
  });

  it('pins token counts too, on Anthropic', async () => {
    const { baseUrls } = gateway.openSession('pinned-count', { model: 'claude-sonnet-4-5' });
    const reply = await post(`${baseUrls.anthropic}/v1/messages/count_tokens`, { model: 'claude-opus-4-1', messages: [] });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(upstream.received).toEqual([]);
    expect((await post(`${baseUrls.anthropic}/v1/messages/count_tokens`, { model: 'claude-sonnet-4-5', messages: [] })).status).toBe(200);
    expect(upstream.received).toEqual(['POST /v1/messages/count_tokens']);
  });

  it('with otherModels: serve, serves another model and records what was asked for and what answered, per request', async () => {
    const { baseUrls } = gateway.openSession('serve-others', { model: 'claude-sonnet-4-5', otherModels: 'serve' });
    expect((await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: 'gpt-4.1' }))).status).toBe(200);
    expect((await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest())).status).toBe(200);
    const turns = gateway.turns('serve-others');
    expect(turns.map((t) => [t.requestedModel, t.model])).toEqual([
      ['gpt-4.1', 'gpt-4.1'],
      ['claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ]);
    expect(gateway.usage('serve-others').models).toEqual({ 'gpt-4.1': 1, 'claude-sonnet-4-5': 1 });
  });
});
