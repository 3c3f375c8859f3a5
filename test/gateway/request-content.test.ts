import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flatCassettePath } from '../../src/infra/gateway/cassette.js';
import { newlyAnswered, readRequest } from '../../src/infra/gateway/request-readers.js';
import { replayedTurns } from '../helpers/replayed-turns.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const CASSETTES = resolve('examples/cassettes/agents');
const AGENTS = ['claude-code', 'codex', 'gemini-cli', 'opencode', 'qwen-code'] as const;

describe('readRequest', () => {
  it('reads the system prompt where each format puts it', () => {
    expect(
      readRequest('chat', {
        messages: [
          { role: 'system', content: 'You are X.' },
          { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'a later note is not the system prompt' },
        ],
      }).system,
    ).toBe('You are X.\n\nBe brief.');
    expect(
      readRequest('responses', { instructions: 'Base.', input: [{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Dev.' }] }] })
        .system,
    ).toBe('Base.\n\nDev.');
    expect(
      readRequest('messages', {
        system: [
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B' },
        ],
        messages: [],
      }).system,
    ).toBe('A\nB');
    expect(readRequest('messages', { system: 'Plain.', messages: [] }).system).toBe('Plain.');
    expect(readRequest('gemini', { systemInstruction: { parts: [{ text: 'G.' }] }, contents: [] }).system).toBe('G.');
    expect(readRequest('chat', { messages: [{ role: 'user', content: 'hi' }] }).system).toBeUndefined();
    expect(readRequest('chat', undefined)).toEqual({ toolResults: [] });
  });

  it('reads the tool results sent back, under the ids of the calls they answer', () => {
    expect(readRequest('chat', { messages: [{ role: 'tool', tool_call_id: 'call_1', content: 'out' }] }).toolResults).toEqual([
      { ids: ['call_1'], output: 'out' },
    ]);
    expect(
      readRequest('responses', {
        input: [
          { type: 'function_call_output', call_id: 'c1', output: 'one' },
          { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
        ],
      }).toolResults,
    ).toEqual([
      { ids: ['c1'], output: 'one' },
      { ids: ['c2'], output: 'two' },
    ]);
    expect(
      readRequest('messages', {
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such file', is_error: true }] }],
      }).toolResults,
    ).toEqual([{ ids: ['toolu_1'], output: 'no such file', isError: true }]);
    // Gemini's API gives calls no ids: after the last model turn, a response also answers to `<name>#<position>`.
    const gemini = readRequest('gemini', {
      contents: [
        { role: 'model', parts: [{ functionCall: { name: 'read_file', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'old' } } }] },
        { role: 'model', parts: [{ functionCall: { name: 'ls', args: {} } }, { functionCall: { name: 'read_file', args: {} } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'cli_1', name: 'ls', response: { output: 'a b' } } },
            { functionResponse: { name: 'read_file', response: { error: 'gone' } } },
          ],
        },
      ],
    }).toolResults;
    expect(gemini).toEqual([
      { ids: ['cli_1', 'ls#0'], output: 'a b' },
      { ids: ['read_file#1'], output: '{"error":"gone"}', isError: true },
    ]);
  });

  it('reads Bedrock Converse: system text blocks, toolResult blocks with their status', () => {
    const read = readRequest('converse', {
      system: [{ text: 'Be brief.' }, { text: 'Use tools.' }],
      messages: [
        { role: 'user', content: [{ text: 'fix it' }] },
        { role: 'assistant', content: [{ toolUse: { toolUseId: 'tu_1', name: 'run', input: { cmd: 'ls' } } }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 'tu_1', content: [{ text: 'a.txt' }], status: 'error' } }] },
      ],
    });
    expect(read.system).toBe('Be brief.\n\nUse tools.');
    expect(read.toolResults).toEqual([{ ids: ['tu_1'], output: 'a.txt', isError: true }]);
  });

  it('keeps each result once, on the first request that answers a pending call', () => {
    const sent = readRequest('chat', {
      messages: [
        { role: 'tool', tool_call_id: 'a', content: '1' },
        { role: 'tool', tool_call_id: 'b', content: '2' },
      ],
    }).toolResults;
    const earlier = [{ toolCalls: [{ id: 'a' }], toolResults: [] }, { toolCalls: [{ id: 'b' }] }];
    expect(newlyAnswered(earlier, sent)).toEqual([
      { id: 'a', output: '1' },
      { id: 'b', output: '2' },
    ]);
    expect(newlyAnswered([...earlier, { toolCalls: [], toolResults: [{ id: 'a', output: '1' }] }], sent)).toEqual([{ id: 'b', output: '2' }]);
    // A result for no call the model made is no call's result.
    expect(newlyAnswered([], sent)).toEqual([]);
    // Gemini's positional ids recur: turn 3 asks for read_file#0 again after turn 2 answered turn 1's.
    const again = [{ ids: ['read_file#0'], output: 'second read' }];
    const gemini = [
      { toolCalls: [{ id: 'read_file#0' }] },
      { toolCalls: [], toolResults: [{ id: 'read_file#0', output: 'first read' }] },
      { toolCalls: [{ id: 'read_file#0' }] },
    ];
    expect(newlyAnswered(gemini, again)).toEqual([{ id: 'read_file#0', output: 'second read' }]);
    expect(newlyAnswered(gemini.slice(0, 2), again)).toEqual([]);
  });
});

describe.each(AGENTS)('the gateway replaying the committed %s session', (agent) => {
  it('records on every turn the system prompt its request carried, and on each the results of the previous turn’s calls', async () => {
    const file = join(CASSETTES, 'js-slugify', agent, '0.jsonl');
    const { turns, usage } = await replayedTurns(CASSETTES, ['js-slugify', agent, '0'], file);
    expect(usage.replayMisses).toEqual([]);
    expect(turns).toHaveLength(3);
    const system = turns[0]?.system ?? '';
    expect(system.length).toBeGreaterThan(1000);
    expect(turns.map((t) => t.system)).toEqual([system, system, system]);
    expect(turns[0]?.toolResults).toBeUndefined();
    for (const k of [1, 2]) {
      expect(turns[k]?.toolResults?.map((r) => r.id)).toEqual(turns[k - 1]?.toolCalls.map((c) => c.id));
      expect(turns[k]?.toolResults?.every((r) => r.output.length > 0)).toBe(true);
    }
  });

  it('replays the same session from a directory in the flat layout recorded before folders', async () => {
    const key = ['js-slugify', agent, '0'];
    const dir = tempDir();
    copyFileSync(join(CASSETTES, 'js-slugify', agent, '0.jsonl'), flatCassettePath(dir, key));
    const { turns, usage } = await replayedTurns(dir, key, flatCassettePath(dir, key));
    expect(usage.replayMisses).toEqual([]);
    expect(turns.map((t) => t.status)).toEqual([200, 200, 200]);
  });
});
