import { describe, expect, it } from 'vitest';
import { canonicalRequest, requestHash } from '../../src/infra/gateway/canonical.js';
import type { Api } from '../../src/infra/gateway/usage-readers.js';

function hashOf(json: Record<string, unknown>, api: Api = 'chat', path = '/v1/chat/completions'): string {
  return requestHash(canonicalRequest({ upstream: 'openai', method: 'POST', pathWithQuery: path, api, body: Buffer.from(JSON.stringify(json)), json }));
}

const base = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 0, tools: [{ type: 'function', function: { name: 'f' } }] };

describe('request hash', () => {
  it('ignores key order, ids, user, metadata and an explicit stream:false', () => {
    const shuffled = { tools: base.tools, temperature: 0, messages: [{ content: 'hi', role: 'user' }], model: 'gpt-4o-mini' };
    expect(hashOf(shuffled)).toBe(hashOf(base));
    expect(hashOf({ ...base, user: 'u-1', metadata: { run: 'x' }, store: true, stream: false, seed: undefined })).toBe(hashOf(base));
    expect(hashOf({ ...base, previous_response_id: 'resp_1' }, 'responses', '/v1/responses')).toBe(hashOf(base, 'responses', '/v1/responses'));
  });

  it('ignores the ids Codex regenerates on Responses input items, but not the call ids that pair calls with outputs', () => {
    const input = (ids: [string, string], callId = 'call_1') => ({
      model: 'gpt-5.5',
      input: [
        { id: ids[0], type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix it' }] },
        { id: ids[1], type: 'function_call_output', call_id: callId, output: 'ok' },
      ],
    });
    const first = hashOf(input(['msg_16cc', 'fco_1']), 'responses', '/v1/responses');
    expect(hashOf(input(['msg_a930', 'fco_2']), 'responses', '/v1/responses')).toBe(first);
    expect(hashOf(input(['msg_a930', 'fco_2'], 'call_2'), 'responses', '/v1/responses')).not.toBe(first);
  });

  it('ignores the ids Gemini CLI makes up for function calls and their responses', () => {
    const contents = (id: string) => ({
      contents: [
        { role: 'model', parts: [{ functionCall: { id, name: 'read_file', args: { file_path: 'a' } } }] },
        { role: 'user', parts: [{ functionResponse: { id, name: 'read_file', response: { output: 'x' } } }] },
      ],
    });
    const path = '/v1beta/models/gemini-2.5-pro:streamGenerateContent';
    const first = hashOf(contents('read_file_1796107238053_0'), 'gemini', path);
    expect(hashOf(contents('read_file_1796107999999_0'), 'gemini', path)).toBe(first);
    const renamed = contents('x');
    (renamed.contents[0]?.parts[0] as { functionCall: { name: string } }).functionCall.name = 'write_file';
    expect(hashOf(renamed, 'gemini', path)).not.toBe(first);
  });

  it('changes with anything that changes the answer', () => {
    const original = hashOf(base);
    for (const changed of [
      { ...base, model: 'gpt-4.1' },
      { ...base, messages: [{ role: 'user', content: 'hello' }] },
      { ...base, temperature: 1 },
      { ...base, top_p: 0.5 },
      { ...base, tools: [] },
      { ...base, tool_choice: 'required' },
      { ...base, max_tokens: 100 },
      { ...base, response_format: { type: 'json_object' } },
      { ...base, stream: true },
    ]) {
      expect(hashOf(changed), JSON.stringify(changed)).not.toBe(original);
    }
    expect(hashOf(base, 'chat', '/v1/chat/completions?x=1')).toBe(original);
  });

  it('keeps the query and the raw body for paths it does not understand', () => {
    const get = (path: string) =>
      requestHash(canonicalRequest({ upstream: 'openai', method: 'GET', pathWithQuery: path, api: 'other', body: Buffer.alloc(0) }));
    expect(get('/v1/models?limit=2')).not.toBe(get('/v1/models'));
  });
});
