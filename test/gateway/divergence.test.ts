import { describe, expect, it } from 'vitest';
import { canonicalRequest, requestHash } from '../../src/infra/gateway/canonical.js';
import type { CassetteExchange } from '../../src/infra/gateway/cassette.js';
import { ReplayBook } from '../../src/infra/gateway/replay.js';
import { Volatility } from '../../src/infra/gateway/volatile.js';

const SYSTEM = `You are Claude Code, Anthropic's official CLI for Claude.\n${'Follow the rules. '.repeat(400)}\nWorking directory: /tmp/ws-A\nIs directory a git repo: Yes`;

/** A Claude Code-like fourth request: system blocks, a tool use, its result, then a text block. */
function claudeCodeRequest(system: string, lastText: string): Record<string, unknown> {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 32000,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/tmp/ws-A/src/a.mjs' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const add = (a, b) => a - b;' }] },
      { role: 'user', content: [{ type: 'text', text: lastText }] },
    ],
    tools: [{ name: 'Read', input_schema: { type: 'object' } }],
    stream: true,
    metadata: { user_id: 'user_abc_account__session_6f1c2a9e-4b7d-4e21-9c3a-0d5e8f7a1b2c' },
  };
}

function canonical(json: Record<string, unknown>) {
  return new Volatility().normalise(
    canonicalRequest({ upstream: 'anthropic', method: 'POST', pathWithQuery: '/v1/messages?beta=true', api: 'messages', body: Buffer.alloc(0), json }),
  );
}

function book(json: Record<string, unknown>): ReplayBook {
  const recorded = canonical(json);
  const exchange: CassetteExchange = {
    type: 'exchange',
    seq: 3,
    api: 'messages',
    request: { hash: requestHash(recorded), canonical: recorded },
    response: { status: 200, headers: {}, events: [] },
    latencyMs: 5,
  };
  return new ReplayBook([exchange]);
}

describe('a replay miss says where the request diverged', () => {
  it('names the first differing path inside the conversation, with both sides', () => {
    const replay = book(claudeCodeRequest(SYSTEM, 'Now run the tests.'));
    const request = canonical(claudeCodeRequest(SYSTEM, 'Now run the linter.'));
    const miss = replay.take(requestHash(request), request);
    expect(miss.hit).toBe(false);
    const diff = miss.hit ? '' : miss.diff;
    expect(diff.split('\n')).toEqual([
      'replay miss: no recorded exchange matches POST /v1/messages (model claude-sonnet-4-5); the next recording due, #3, first differs at messages[3].content[0].text: recorded "Now run the tests." ≠ requested "Now run the linter."',
    ]);
  });

  it('a changed instruction is named first, against the recording due next, though another recording is closer in other fields', () => {
    const chat = (content: string, extra: Record<string, unknown> = {}) =>
      new Volatility().normalise(
        canonicalRequest({
          upstream: 'openai',
          method: 'POST',
          pathWithQuery: '/v1/chat/completions',
          api: 'chat',
          body: Buffer.alloc(0),
          json: { model: 'gpt-4.1-mini', max_tokens: 100, messages: [{ role: 'user', content }], ...extra },
        }),
      );
    const exchange = (seq: number, canonical: ReturnType<typeof chat>): CassetteExchange => ({
      type: 'exchange',
      seq,
      api: 'chat',
      request: { hash: requestHash(canonical), canonical },
      response: { status: 200, headers: {}, events: [] },
      latencyMs: 5,
    });
    // #0 was the first request, with the old instruction; #1, later, happens to carry the new
    // instruction's text but other settings: closer by field count, and not what was due.
    const replay = new ReplayBook([exchange(0, chat('make value.txt say right (1)')), exchange(1, chat('make value.txt say right (2)', { temperature: 0.5 }))]);
    const request = chat('make value.txt say right (2)');
    const miss = replay.take(requestHash(request), request);
    const diff = miss.hit ? '' : miss.diff;
    expect(diff.split('\n')[0]).toBe(
      'replay miss: no recorded exchange matches POST /v1/chat/completions (model gpt-4.1-mini); the next recording due, #0, first differs at messages[0].content: recorded "make value.txt say right (1)" ≠ requested "make value.txt say right (2)"',
    );
    expect(diff).not.toContain('temperature');
  });

  it('shows a long system prompt around where it departs, not from its start', () => {
    const replay = book(claudeCodeRequest(SYSTEM, 'go'));
    const request = canonical(claudeCodeRequest(SYSTEM.replace('/tmp/ws-A', '/tmp/ws-B'), 'go'));
    const miss = replay.take(requestHash(request), request);
    const diff = miss.hit ? '' : miss.diff;
    expect(diff).toContain('system[0].text: recorded "…');
    expect(diff).toContain('directory: /tmp/ws-A');
    expect(diff).toContain('directory: /tmp/ws-B');
    expect(diff).not.toContain('You are Claude Code');
  });
});
