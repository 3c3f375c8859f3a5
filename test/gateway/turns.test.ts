import { describe, expect, it } from 'vitest';
import type { ModelTurn } from '../../src/infra/gateway/index.js';
import { parseSseBlock } from '../../src/infra/gateway/sse.js';
import { abbreviate, MAX_TURN_TEXT, turnReader } from '../../src/infra/gateway/turn-readers.js';
import { useTempDirs } from '../helpers/tmp.js';
import { SCENARIOS, startFakeUpstream } from './fake-upstream.js';
import { chatRequest, geminiPath, geminiRequest, messagesRequest, post, responsesRequest, startTestGateway, useTestGateway } from './helpers.js';

const tempDir = useTempDirs();
const gw = useTestGateway();

const READ_A = { name: 'read_file', input: { path: 'src/a.ts' } };
/** The system prompt every helper request carries, in its format's place (system message, instructions, system blocks, systemInstruction). */
const SYSTEM = 'You are a coding agent.';

type Step = { upstream: string; path: string; body: Record<string, unknown> };

const CASES: Array<{ api: string; step: (stream: boolean) => Step; expected: Partial<ModelTurn> }> = [
  {
    api: 'chat',
    step: (stream) => ({ upstream: 'openai', path: '/chat/completions', body: chatRequest({ stream, tools: true }) }),
    expected: {
      system: SYSTEM,
      model: 'gpt-4o-mini-2024-07-18',
      requestedModel: 'gpt-4o-mini',
      toolCalls: [{ id: 'call_Xq1', ...READ_A }],
      finishReason: 'tool_calls',
    },
  },
  {
    api: 'responses',
    step: (stream) => ({ upstream: 'openai', path: '/responses', body: responsesRequest({ stream, tools: true }) }),
    expected: {
      system: SYSTEM,
      model: 'gpt-4.1-2025-04-14',
      requestedModel: 'gpt-4.1',
      toolCalls: [{ id: 'call_unLAR8', ...READ_A }],
      finishReason: 'completed',
    },
  },
  {
    api: 'messages',
    step: (stream) => ({ upstream: 'anthropic', path: '/v1/messages', body: messagesRequest({ stream, tools: true }) }),
    expected: {
      system: SYSTEM,
      model: 'claude-sonnet-4-5-20250929',
      requestedModel: 'claude-sonnet-4-5',
      text: 'Let me read the file.',
      toolCalls: [{ id: 'toolu_01A09q90qw90lq917835lq9', ...READ_A }],
      finishReason: 'tool_use',
    },
  },
  {
    api: 'gemini',
    step: (stream) => ({ upstream: 'gemini', path: geminiPath('gemini-2.5-pro', stream), body: geminiRequest({ tools: true }) }),
    expected: {
      system: SYSTEM,
      model: 'gemini-2.5-pro',
      requestedModel: 'gemini-2.5-pro',
      text: 'Let me read the file.',
      reasoning: 'Checking the tests.',
      toolCalls: [{ id: 'read_file#0', ...READ_A }],
      finishReason: 'STOP',
    },
  },
];

describe.each([false, true])('turns (stream: %s)', (stream) => {
  it.each(CASES)('$api: text, reasoning, tool calls, finish reason and usage of each exchange', async ({ api, step, expected }) => {
    const id = `${api}-${stream}`;
    const { baseUrls } = gw.gateway.openSession(id);
    const { upstream, path, body } = step(stream);
    expect((await post(`${baseUrls[upstream]}${path}`, body)).status).toBe(200);
    const turns = gw.gateway.turns(id);
    expect(turns).toHaveLength(1);
    const [turn] = turns as [ModelTurn];
    expect(turn).toEqual({
      seq: 0,
      api,
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      status: 200,
      latencyMs: expect.any(Number),
      usage: expect.objectContaining({ outputTokens: expect.any(Number) }),
      ...expected,
    });
    expect(turn.usage?.inputTokens).toBe(gw.gateway.usage(id).inputTokens);
  });
});

describe('turns across a session', () => {
  it('keeps every metered exchange in order, errors included, and answers after the session closed', async () => {
    const { baseUrls } = gw.gateway.openSession('session');
    await post(`${baseUrls.openai}/chat/completions`, chatRequest({ stream: true }));
    await post(`${baseUrls.openai}/chat/completions`, chatRequest({ model: SCENARIOS.rateLimited }));
    await fetch(`${baseUrls.openai}/models`);
    await post(`${baseUrls.openai}/responses`, responsesRequest());
    gw.gateway.closeSession('session');
    const turns = gw.gateway.turns('session');
    expect(turns.map((t) => [t.seq, t.api, t.status, t.text ?? null, t.finishReason ?? null])).toEqual([
      [0, 'chat', 200, 'The bug is in src/a.ts — naïve “quotes”.', 'stop'],
      [1, 'chat', 429, null, null],
      [3, 'responses', 200, 'The bug is in src/a.ts.', 'completed'],
    ]);
    expect(turns[1]?.toolCalls).toEqual([]);
    expect(turns[1]?.usage).toBeUndefined();
  });

  it('gives the same turns on replay as when recorded', async () => {
    const dir = tempDir();
    const upstream = await startFakeUpstream();
    const recorder = await startTestGateway(upstream, { mode: 'record', cassetteDir: dir });
    const session = recorder.openSession('rec', { cassette: 'k' });
    const steps = CASES.flatMap((c) => [c.step(false), c.step(true)]);
    for (const step of steps) await post(`${session.baseUrls[step.upstream]}${step.path}`, step.body);
    const recordedTurns = recorder.turns('rec');
    await recorder.close();
    await upstream.close();
    const replayer = await startTestGateway(upstream, { mode: 'replay', cassetteDir: dir, env: {} });
    try {
      const replay = replayer.openSession('rep', { cassette: 'k' });
      for (const step of steps) await post(`${replay.baseUrls[step.upstream]}${step.path}`, step.body);
      const withoutTime = (turns: ModelTurn[]) => turns.map(({ at: _at, ...rest }) => rest);
      expect(withoutTime(replayer.turns('rep'))).toEqual(withoutTime(recordedTurns));
      expect(recordedTurns).toHaveLength(8);
    } finally {
      await replayer.close();
    }
  });
});

describe('turn readers on other response shapes', () => {
  const events = (payloads: Array<Record<string, unknown>>) =>
    payloads.map((p) => parseSseBlock(`event: ${String(p['type'])}\ndata: ${JSON.stringify(p)}\n\n`));

  it('Responses: keeps a freeform custom tool call (Codex apply_patch) as its raw string, reads reasoning summaries', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.mjs\n@@\n-return a - b;\n+return a + b;\n*** End Patch';
    const reader = turnReader('responses');
    for (const event of events([
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'The sign is wrong.' }] },
      },
      {
        type: 'response.output_item.done',
        output_index: 1,
        item: { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_P1', name: 'apply_patch', input: patch },
      },
      {
        type: 'response.output_item.done',
        output_index: 2,
        item: { type: 'function_call', id: 'fc_2', call_id: 'call_S2', name: 'shell', arguments: '{"command":["npm","test"]}' },
      },
      { type: 'response.completed', response: { status: 'completed', output: [] } },
    ]))
      reader.event(event);
    expect(reader.result()).toEqual({
      reasoning: 'The sign is wrong.',
      toolCalls: [
        { id: 'call_P1', name: 'apply_patch', input: patch },
        { id: 'call_S2', name: 'shell', input: { command: ['npm', 'test'] } },
      ],
      finishReason: 'completed',
    });
  });

  it('Messages: thinking deltas are reasoning; Chat: parallel tool calls are kept apart by index', () => {
    const messages = turnReader('messages');
    for (const event of events([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Read it first.' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"file_path":"/w/a.mjs"}' } },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
    ]))
      messages.event(event);
    expect(messages.result()).toEqual({
      reasoning: 'Read it first.',
      toolCalls: [{ id: 'toolu_1', name: 'Read', input: { file_path: '/w/a.mjs' } }],
      finishReason: 'tool_use',
    });

    const chat = turnReader('chat');
    const chunk = (delta: Record<string, unknown>) => parseSseBlock(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
    chat.event(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'read', arguments: '{"p":' } }] }));
    chat.event(chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'list', arguments: '{}' } }] }));
    chat.event(chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }));
    expect(chat.result().toolCalls).toEqual([
      { id: 'a', name: 'read', input: { p: 1 } },
      { id: 'b', name: 'list', input: {} },
    ]);
  });

  it('abbreviates long text and long tool input strings, keeping both ends', () => {
    const long = `${'a'.repeat(30_000)}END`;
    const cut = abbreviate(long);
    expect(cut.length).toBeLessThan(MAX_TURN_TEXT + 100);
    expect(cut.startsWith('aaa')).toBe(true);
    expect(cut.endsWith('END')).toBe(true);
    expect(cut).toContain('characters omitted');
    const gemini = turnReader('gemini');
    gemini.body(JSON.stringify({ candidates: [{ content: { parts: [{ text: long }, { functionCall: { name: 'write_file', args: { content: long } } }] } }] }));
    const turn = gemini.result();
    expect(turn.text).toBe(cut);
    expect(turn.toolCalls[0]?.input).toEqual({ content: cut });
  });
});
