import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cassettePath, readCassette, type Gateway, type SessionUsage } from '../../src/infra/gateway/index.js';
import { SCENARIOS, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { ANTHROPIC_KEY, chatRequest, DUMMY_KEY, messagesRequest, OPENAI_KEY, post, responsesRequest, startTestGateway, type Reply } from './helpers.js';

const CASSETTE_KEY = 'fix-a-bug/openai:gpt-4o-mini/0';

interface Step {
  path: (urls: Record<string, string>) => string;
  body?: Record<string, unknown>;
}

/** One agent session touching every API, streamed and not, with repeats, an error and a plain GET. */
const SESSION: Step[] = [
  { path: (u) => `${u['openai']}/chat/completions`, body: chatRequest({ tools: true }) },
  { path: (u) => `${u['openai']}/chat/completions`, body: chatRequest({ stream: true }) },
  { path: (u) => `${u['openai']}/chat/completions`, body: chatRequest({ stream: true, includeUsage: true, tools: true }) },
  // The same request twice: the replay must hand back the first answer, then the second.
  { path: (u) => `${u['openai']}/chat/completions`, body: chatRequest({ prompt: 'again' }) },
  { path: (u) => `${u['openai']}/chat/completions`, body: chatRequest({ prompt: 'again' }) },
  { path: (u) => `${u['openai']}/responses`, body: responsesRequest({ stream: true, tools: true }) },
  { path: (u) => `${u['openai']}/responses`, body: responsesRequest() },
  { path: (u) => `${u['anthropic']}/v1/messages`, body: messagesRequest({ stream: true, tools: true }) },
  { path: (u) => `${u['anthropic']}/v1/messages?beta=true`, body: messagesRequest() },
  { path: (u) => `${u['openai']}/chat/completions`, body: chatRequest({ model: SCENARIOS.rateLimited }) },
  { path: (u) => `${u['openai']}/chat/completions`, body: chatRequest({ model: SCENARIOS.echoKey }) },
  { path: (u) => `${u['openai']}/models` },
];

async function run(step: Step, urls: Record<string, string>): Promise<Reply> {
  if (step.body) return post(step.path(urls), step.body);
  const response = await fetch(step.path(urls), { headers: { authorization: `Bearer ${DUMMY_KEY}` } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

let dir: string;
let fake: FakeUpstream;
let recorded: Reply[] = [];
let recordedUsage: SessionUsage;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crucible-cassettes-'));
  fake = await startFakeUpstream();
  const recorder = await startTestGateway(fake, { mode: 'record', cassetteDir: dir });
  const { baseUrls } = recorder.openSession('attempt-1', { cassette: CASSETTE_KEY });
  recorded = [];
  for (const step of SESSION) recorded.push(await run(step, baseUrls));
  recordedUsage = recorder.usage('attempt-1');
  recorder.closeSession('attempt-1');
  await recorder.close();
  // Nothing upstream from here on.
  await fake.close();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function replayGateway(): Promise<Gateway> {
  return startTestGateway(fake, { mode: 'replay', cassetteDir: dir, env: {} });
}

describe('record', () => {
  it('writes one JSONL file named by the stable key, one line per exchange', () => {
    // One folder per key part: <task>/<agent>/<trial>.jsonl.
    expect(readdirSync(dir, { recursive: true }).sort()).toEqual(['fix-a-bug', 'fix-a-bug/openai%3Agpt-4o-mini', 'fix-a-bug/openai%3Agpt-4o-mini/0.jsonl']);
    const { header, exchanges } = readCassette(cassettePath(dir, CASSETTE_KEY));
    expect(header).toMatchObject({ type: 'cassette', version: 1, key: CASSETTE_KEY });
    expect(exchanges.map((e) => e.seq)).toEqual(SESSION.map((_, i) => i));
    expect(exchanges.map((e) => e.api)).toEqual([
      'chat',
      'chat',
      'chat',
      'chat',
      'chat',
      'responses',
      'responses',
      'messages',
      'messages',
      'chat',
      'chat',
      'other',
    ]);
    expect(exchanges[1]?.response.events?.length).toBeGreaterThan(3);
    expect(exchanges[9]?.response).toMatchObject({ status: 429, headers: { 'retry-after': '7' } });
  });

  it('never stores a key, an auth header, a cookie or the account id', () => {
    const bytes = readFileSync(cassettePath(dir, CASSETTE_KEY), 'utf8');
    for (const secret of [OPENAI_KEY, ANTHROPIC_KEY, DUMMY_KEY, 'REALKEY', 'tracking-cookie', 'org-fake-account', 'f3b0c1d2-org']) {
      expect(bytes).not.toContain(secret);
    }
    expect(bytes.toLowerCase()).not.toMatch(/"(authorization|x-api-key|cookie|set-cookie|openai-organization)"/);
    // The upstream quoted the key back in its 401; the cassette keeps the message, not the key.
    expect(bytes).toContain('Incorrect API key provided: [REDACTED].');
  });
});

describe('replay', () => {
  it('serves byte-identical bodies and the same usage with the upstream shut down', async () => {
    const gateway = await replayGateway();
    try {
      const { baseUrls } = gateway.openSession('attempt-1-replay', { cassette: CASSETTE_KEY });
      for (const [index, step] of SESSION.entries()) {
        const reply = await run(step, baseUrls);
        expect(reply.status, `step ${index}`).toBe(recorded[index]?.status);
        // The one intended difference: the key the upstream quoted back was never recorded.
        expect(reply.text, `step ${index}`).toBe(recorded[index]?.text.replace(OPENAI_KEY, '[REDACTED]'));
        expect(reply.headers.get('content-type')).toBe(recorded[index]?.headers.get('content-type'));
      }
      expect(gateway.usage('attempt-1-replay')).toEqual(recordedUsage);
      expect(recordedUsage.requests).toBe(11);
      expect(recordedUsage.costUsd).toBeGreaterThan(0);
    } finally {
      await gateway.close();
    }
  });

  it('ignores ids, user, metadata and JSON key order when matching', async () => {
    const gateway = await replayGateway();
    try {
      const { baseUrls } = gateway.openSession('reordered', { cassette: CASSETTE_KEY });
      const original = messagesRequest();
      const reordered = Object.fromEntries(Object.entries({ ...original, metadata: { user_id: 'another-session' } }).reverse());
      const reply = await post(`${baseUrls.anthropic}/v1/messages?beta=true`, reordered);
      expect(reply.status).toBe(200);
      expect(reply.text).toBe(recorded[8]?.text);
    } finally {
      await gateway.close();
    }
  });

  it('answers a changed request with a diff against the recording due next, and keeps the miss', async () => {
    const gateway = await replayGateway();
    try {
      const { baseUrls } = gateway.openSession('miss', { cassette: CASSETTE_KEY });
      const reply = await post(`${baseUrls.anthropic}/v1/messages`, messagesRequest({ stream: true, tools: true, prompt: 'Fix the failing test in src/b.ts' }));
      expect(reply.status).toBe(400);
      const body = JSON.parse(reply.text) as { type: string; error: { type: string; message: string } };
      expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(body.error.message).toContain('the next recording due, #7, first differs at messages[0].content');
      expect(body.error.message).toContain('messages[0].content: recorded "Fix the failing test in src/a.ts" ≠ requested "Fix the failing test in src/b.ts"');
      const usage = gateway.usage('miss');
      expect(usage.requests).toBe(0);
      expect(usage.replayMisses).toEqual([
        { method: 'POST', path: '/v1/messages', model: 'claude-sonnet-4-5', diff: expect.stringContaining('messages[0].content') },
      ]);
    } finally {
      await gateway.close();
    }
  });

  it('names every differing field, e.g. temperature and tools', async () => {
    const gateway = await replayGateway();
    try {
      const { baseUrls } = gateway.openSession('miss-fields', { cassette: CASSETTE_KEY });
      const reply = await post(`${baseUrls.openai}/chat/completions`, { ...chatRequest({ tools: true }), temperature: 0.7, tool_choice: 'required' });
      const message = (JSON.parse(reply.text) as { error: { message: string; code: string } }).error;
      expect(message.code).toBe('replay_miss');
      expect(message.message).toContain('temperature: recorded 0 ≠ requested 0.7');
      expect(message.message).toContain('tool_choice: recorded "auto" ≠ requested "required"');
    } finally {
      await gateway.close();
    }
  });

  it('misses when a request repeats more often than it was recorded', async () => {
    const gateway = await replayGateway();
    try {
      const { baseUrls } = gateway.openSession('repeats', { cassette: CASSETTE_KEY });
      const again = chatRequest({ prompt: 'again' });
      expect((await post(`${baseUrls.openai}/chat/completions`, again)).text).toBe(recorded[3]?.text);
      expect((await post(`${baseUrls.openai}/chat/completions`, again)).text).toBe(recorded[4]?.text);
      const third = await post(`${baseUrls.openai}/chat/completions`, again);
      expect(third.status).toBe(400);
      expect(third.text).toContain('all were already served');
    } finally {
      await gateway.close();
    }
  });

  it('needs a cassette key, and an existing cassette', async () => {
    const gateway = await replayGateway();
    try {
      expect(() => gateway.openSession('no-key')).toThrow(/cassette key/);
      expect(() => gateway.openSession('no-file', { cassette: 'never-recorded' })).toThrow(/cannot read cassette/);
    } finally {
      await gateway.close();
    }
  });
});
