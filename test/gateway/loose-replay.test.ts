import { describe, expect, it } from 'vitest';
import { canonicalRequest, requestHash, type CanonicalRequest } from '../../src/infra/gateway/canonical.js';
import type { CassetteExchange } from '../../src/infra/gateway/cassette.js';
import { ReplayBook } from '../../src/infra/gateway/replay.js';
import type { Api } from '../../src/infra/gateway/usage-readers.js';
import { startFakeUpstream } from './fake-upstream.js';
import { post, startTestGateway } from './helpers.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function canonical(api: Exclude<Api, 'other'>, body: Record<string, unknown>): CanonicalRequest {
  const paths = {
    chat: '/v1/chat/completions',
    responses: '/v1/responses',
    messages: '/v1/messages',
    gemini: '/v1beta/models/m:generateContent',
    converse: '/model/m/converse',
  };
  const path = paths[api];
  return canonicalRequest({ upstream: 'u', method: 'POST', pathWithQuery: path, api, body: Buffer.from(JSON.stringify(body)), json: body });
}

function exchange(seq: number, request: CanonicalRequest): CassetteExchange {
  return {
    type: 'exchange',
    seq,
    api: 'chat',
    request: { hash: requestHash(request), canonical: request },
    response: { status: 200, headers: {}, body: `answer ${seq}` },
    latencyMs: 1,
  };
}

/** One conversation per API, with a tool result whose text is `output`. */
const SHAPES: Record<Exclude<Api, 'other'>, (output: string, model?: string) => Record<string, unknown>> = {
  chat: (output, model = 'm') => ({
    model,
    messages: [
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'run_tests', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: output },
    ],
  }),
  responses: (output, model = 'm') => ({
    model,
    input: [
      { role: 'user', content: [{ type: 'input_text', text: 'fix it' }] },
      { type: 'function_call', call_id: 'c1', name: 'run_tests', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output },
    ],
  }),
  messages: (output, model = 'm') => ({
    model,
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'run_tests', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: output }] },
    ],
  }),
  gemini: (output) => ({
    contents: [
      { role: 'user', parts: [{ text: 'fix it' }] },
      { role: 'model', parts: [{ functionCall: { name: 'run_tests', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'run_tests', response: { output } } }] },
    ],
  }),
  converse: (output) => ({
    messages: [
      { role: 'user', content: [{ text: 'fix it' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'c1', name: 'run_tests', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'c1', content: [{ text: output }] } }] },
    ],
  }),
};

describe('replay matching', () => {
  it.each(Object.keys(SHAPES) as Array<keyof typeof SHAPES>)('%s: exact first, then a loose match when only tool output differs', (api) => {
    const recorded = canonical(api, SHAPES[api]('4 passed in 0.51s'));
    const book = new ReplayBook([exchange(0, recorded)]);
    const other = canonical(api, SHAPES[api]('4 passed in 0.93s (node 22)'));
    expect(book.take(requestHash(other), other)).toMatchObject({ hit: true, loose: true });
    // Served once: the same request again is a miss.
    expect(book.take(requestHash(recorded), recorded)).toMatchObject({ hit: false });

    const exact = new ReplayBook([exchange(0, recorded)]);
    expect(exact.take(requestHash(recorded), recorded)).toMatchObject({ hit: true, loose: false });
  });

  it('never loosens anything but tool output', () => {
    const recorded = canonical('chat', SHAPES.chat('ok'));
    const book = new ReplayBook([exchange(0, recorded)]);
    const otherModel = canonical('chat', SHAPES.chat('ok', 'another-model'));
    expect(book.take(requestHash(otherModel), otherModel)).toMatchObject({ hit: false });
    const otherPrompt = canonical('chat', { ...SHAPES.chat('ok'), messages: [{ role: 'user', content: 'fix something else' }] });
    expect(book.take(requestHash(otherPrompt), otherPrompt)).toMatchObject({ hit: false });
  });

  it('counts loose matches in the session usage', async () => {
    const fake = await startFakeUpstream();
    const dir = tempDir();
    try {
      const recorder = await startTestGateway(fake, { mode: 'record', cassetteDir: dir });
      const session = recorder.openSession('a', { cassette: 'task/agent/0' });
      expect((await post(`${session.baseUrls.openai}/chat/completions`, SHAPES.chat('1 passed in 0.02s', 'gpt-4o-mini'))).status).toBe(200);
      recorder.closeSession('a');
      await recorder.close();

      const replayer = await startTestGateway(fake, { mode: 'replay', cassetteDir: dir, env: {} });
      const replay = replayer.openSession('b', { cassette: 'task/agent/0' });
      expect((await post(`${replay.baseUrls.openai}/chat/completions`, SHAPES.chat('1 passed in 0.07s', 'gpt-4o-mini'))).status).toBe(200);
      expect(replayer.usage('b')).toMatchObject({ requests: 1, replayLooseMatches: 1, replayMisses: [] });
      await replayer.close();
    } finally {
      await fake.close();
    }
  });
});
