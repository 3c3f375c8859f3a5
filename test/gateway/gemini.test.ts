import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cassettePath, readCassette } from '../../src/infra/gateway/index.js';
import { useTempDirs } from '../helpers/tmp.js';
import { SCENARIOS, startFakeUpstream, USAGE } from './fake-upstream.js';
import { DUMMY_KEY, GEMINI_KEY, geminiPath, geminiRequest, post, sseData, startTestGateway, useTestGateway } from './helpers.js';

const tempDir = useTempDirs();
const gw = useTestGateway();

const U = USAGE.gemini;
// gemini-2.5-pro at the test prices: uncached input 1.25, cached 0.25, output (candidates + thoughts) 10.
const COST = ((U.prompt - U.cached) * 1.25 + U.cached * 0.25 + (U.candidates + U.thoughts) * 10) / 1e6;
const EXPECTED_USAGE = {
  inputTokens: U.prompt,
  outputTokens: U.candidates + U.thoughts,
  cacheReadTokens: U.cached,
  cacheWriteTokens: 0,
  reasoningTokens: U.thoughts,
};

describe('Gemini through the gateway', () => {
  it('hands the agent a base URL without a version segment, as the Gemini SDK takes it', () => {
    const { baseUrls, token } = gw.gateway.openSession('base-url');
    expect(baseUrls['gemini']).toBe(`${gw.gateway.url}/s/${token}/gemini`);
  });

  it.each([
    ['generateContent', false],
    ['streamGenerateContent?alt=sse', true],
  ] as const)('meters %s from usageMetadata (cached and thought tokens included)', async (_name, stream) => {
    const id = `meter-${stream}`;
    const { baseUrls } = gw.gateway.openSession(id);
    const reply = await post(`${baseUrls['gemini']}${geminiPath('gemini-2.5-pro', stream)}`, geminiRequest({ tools: true }));
    expect(reply.status).toBe(200);
    if (stream) {
      expect(reply.headers.get('content-type')).toContain('text/event-stream');
      expect(sseData(reply.text.replace(/\r\n/g, '\n'))).toHaveLength(4);
    }
    const usage = gw.gateway.usage(id);
    expect(usage).toMatchObject({ ...EXPECTED_USAGE, requests: 1, unmeteredResponses: 0 });
    expect(usage.costUsd).toBeCloseTo(COST, 12);
    // The real key went upstream in Gemini's own header; the agent's dummy did not.
    const [received] = gw.fake.requests;
    expect(received?.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(received?.headers['authorization']).toBeUndefined();
    expect(received?.path).toBe(geminiPath('gemini-2.5-pro', stream));
  });

  it('meters a stream sent as one JSON array (no alt=sse), and takes the key out of ?key=', async () => {
    const { baseUrls } = gw.gateway.openSession('array');
    const reply = await post(`${baseUrls['gemini']}/v1beta/models/gemini-2.5-pro:streamGenerateContent?key=${DUMMY_KEY}`, geminiRequest());
    expect(reply.status).toBe(200);
    expect(Array.isArray(JSON.parse(reply.text))).toBe(true);
    expect(gw.gateway.usage('array')).toMatchObject({ ...EXPECTED_USAGE, requests: 1 });
    expect(gw.fake.requests[0]?.path).toBe('/v1beta/models/gemini-2.5-pro:streamGenerateContent');
  });

  it("refuses past the request budget in Gemini's error shape, not retryable", async () => {
    const { baseUrls } = gw.gateway.openSession('budget', { budget: { maxRequests: 1 } });
    const url = `${baseUrls['gemini']}${geminiPath('gemini-2.5-pro', true)}`;
    expect((await post(url, geminiRequest())).status).toBe(200);
    const refused = await post(url, geminiRequest());
    expect(refused.status).toBe(402);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(JSON.parse(refused.text)).toEqual({
      error: { code: 402, message: expect.stringContaining('request budget of 1 reached'), status: 'RESOURCE_EXHAUSTED' },
    });
    expect(gw.fake.requests).toHaveLength(1);
    expect(gw.gateway.usage('budget')).toMatchObject({ requests: 1, budgetExceeded: 'requests' });
  });

  it('passes an upstream 429 through and counts it without usage', async () => {
    const { baseUrls } = gw.gateway.openSession('limited');
    const reply = await post(`${baseUrls['gemini']}${geminiPath(SCENARIOS.rateLimited, false)}`, geminiRequest());
    expect(reply.status).toBe(429);
    expect(JSON.parse(reply.text)).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED' } });
    expect(gw.gateway.usage('limited')).toMatchObject({ requests: 1, inputTokens: 0, unmeteredResponses: 0 });
  });
});

describe('Gemini record and replay', () => {
  it('records gemini exchanges without keys and replays them offline with the same usage', async () => {
    const dir = tempDir();
    const upstream = await startFakeUpstream();
    const recorder = await startTestGateway(upstream, { mode: 'record', cassetteDir: dir });
    const steps = [
      { path: geminiPath('gemini-2.5-pro', false), body: geminiRequest({ tools: true }) },
      { path: `${geminiPath('gemini-2.5-pro', true)}&key=${DUMMY_KEY}`, body: geminiRequest({ prompt: 'and now?' }) },
    ];
    const session = recorder.openSession('rec', { cassette: 'gemini/agent/0' });
    const recorded = [];
    for (const step of steps) recorded.push(await post(`${session.baseUrls['gemini']}${step.path}`, step.body));
    const recordedUsage = recorder.usage('rec');
    recorder.closeSession('rec');
    await recorder.close();
    await upstream.close();

    const file = cassettePath(dir, 'gemini/agent/0');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(GEMINI_KEY);
    expect(text).not.toContain(DUMMY_KEY);
    const { exchanges } = readCassette(file);
    expect(exchanges.map((e) => [e.api, e.request.canonical['model'], e.request.canonical['stream'], e.request.canonical.path])).toEqual([
      ['gemini', 'gemini-2.5-pro', false, '/v1beta/models/gemini-2.5-pro:generateContent'],
      ['gemini', 'gemini-2.5-pro', true, '/v1beta/models/gemini-2.5-pro:streamGenerateContent'],
    ]);
    expect(Object.keys(exchanges[0]?.request.canonical ?? {}).sort()).toEqual([
      'contents',
      'generationConfig',
      'method',
      'model',
      'path',
      'stream',
      'systemInstruction',
      'tools',
      'upstream',
    ]);

    const replayer = await startTestGateway(upstream, { mode: 'replay', cassetteDir: dir, env: {} });
    try {
      const replay = replayer.openSession('rep', { cassette: 'gemini/agent/0' });
      for (const [index, step] of steps.entries()) {
        const reply = await post(`${replay.baseUrls['gemini']}${step.path}`, step.body);
        expect(reply.status).toBe(200);
        expect(reply.text).toBe(recorded[index]?.text);
      }
      expect(replayer.usage('rep')).toEqual(recordedUsage);

      const miss = await post(`${replay.baseUrls['gemini']}${geminiPath('gemini-2.5-pro', false)}`, geminiRequest({ tools: true, prompt: 'Fix src/b.ts' }));
      expect(miss.status).toBe(400);
      const error = (JSON.parse(miss.text) as { error: { code: number; status: string; message: string } }).error;
      expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(error.message).toContain('contents[0].parts[0].text: recorded "Fix the failing test in src/a.ts" ≠ requested "Fix src/b.ts"');
    } finally {
      await replayer.close();
    }
  });
});
