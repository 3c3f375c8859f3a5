import { describe, expect, it } from 'vitest';
import { parseAgentOutput } from '../../../src/domain/agents/external/outputs/index.js';

/*
 * Fixture lines written after each agent's documented output (Claude Code's stream-json, codex
 * exec --json's exec_events.rs, Gemini CLI's JsonFormatter and stream-json events, Qwen Code's
 * JsonOutputAdapter), with noise an agent really prints around them.
 */

const lines = (...objects: unknown[]): string => `${objects.map((o) => JSON.stringify(o)).join('\n')}\n`;

describe('claude-stream-json', () => {
  const stdout = lines(
    { type: 'system', subtype: 'init', session_id: 's1', tools: ['Bash', 'Read', 'Edit'], model: 'claude-sonnet-4-5', cwd: '/w' },
    {
      type: 'assistant',
      message: {
        id: 'msg_1',
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat value.txt', description: 'Show the file' } },
        ],
      },
      session_id: 's1',
    },
    {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'wrong', is_error: false }] },
      session_id: 's1',
    },
    {
      type: 'assistant',
      message: {
        id: 'msg_2',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_2', name: 'Edit', input: { file_path: '/w/value.txt', old_string: 'wrong', new_string: 'right' } }],
      },
    },
    {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'The file was updated.' }] }] },
    },
    { type: 'assistant', message: { id: 'msg_3', role: 'assistant', content: [{ type: 'text', text: 'Done: value.txt says right.' }] } },
    {
      type: 'result',
      subtype: 'success',
      is_error: false,
      duration_ms: 5120,
      num_turns: 3,
      result: 'Done: value.txt says right.',
      total_cost_usd: 0.01,
      usage: { input_tokens: 30 },
    },
  );

  it('reads the final message, turns, tool uses with their results, and Bash commands', () => {
    const parsed = parseAgentOutput('claude-stream-json', `some banner\n${stdout}{"type":"future_event"}\nnot json {\n`);
    expect(parsed.finalMessage).toBe('Done: value.txt says right.');
    expect(parsed.turns).toBe(3);
    expect(parsed.tools).toEqual([
      { id: 'toolu_1', name: 'Bash', input: { command: 'cat value.txt', description: 'Show the file' }, output: 'wrong', ok: true },
      {
        id: 'toolu_2',
        name: 'Edit',
        input: { file_path: '/w/value.txt', old_string: 'wrong', new_string: 'right' },
        output: 'The file was updated.',
        ok: true,
      },
    ]);
    expect(parsed.commands).toEqual([{ command: 'cat value.txt', toolId: 'toolu_1' }]);
    expect(parsed.error).toBeUndefined();
  });

  it('takes the last assistant text when the stream was cut before its result, and reports an error result', () => {
    const cut = stdout.split('\n').slice(0, 6).join('\n');
    expect(parseAgentOutput('claude-stream-json', cut).finalMessage).toBe('Done: value.txt says right.');
    const failed = parseAgentOutput('claude-stream-json', lines({ type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 9 }));
    expect(failed.error).toBe('error_max_turns');
  });
});

describe('claude-stream-json from Qwen Code', () => {
  it("reads Qwen's shell tool, run_shell_command, as a command", () => {
    const stdout = lines(
      { type: 'assistant', message: { content: [{ type: 'tool_use', id: 'call_1', name: 'run_shell_command', input: { command: 'npm test' } }] } },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'ok' }] } },
      { type: 'result', subtype: 'success', num_turns: 2, result: 'Done.' },
    );
    expect(parseAgentOutput('claude-stream-json', stdout).commands).toEqual([{ command: 'npm test', toolId: 'call_1' }]);
  });
});

describe('codex-json', () => {
  const stdout = lines(
    { type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' },
    { type: 'turn.started' },
    { type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Looking at the file**' } },
    {
      type: 'item.started',
      item: { id: 'item_1', type: 'command_execution', command: "bash -lc 'cat value.txt'", aggregated_output: '', exit_code: null, status: 'in_progress' },
    },
    {
      type: 'item.completed',
      item: { id: 'item_1', type: 'command_execution', command: "bash -lc 'cat value.txt'", aggregated_output: 'wrong\n', exit_code: 0, status: 'completed' },
    },
    { type: 'item.completed', item: { id: 'item_2', type: 'file_change', changes: [{ path: '/w/value.txt', kind: 'update' }], status: 'completed' } },
    {
      type: 'item.started',
      item: { id: 'item_3', type: 'command_execution', command: "bash -lc 'sh check.sh'", aggregated_output: '', exit_code: null, status: 'in_progress' },
    },
    {
      type: 'item.completed',
      item: { id: 'item_3', type: 'command_execution', command: "bash -lc 'sh check.sh'", aggregated_output: 'failed\n', exit_code: 1, status: 'failed' },
    },
    { type: 'item.completed', item: { id: 'item_4', type: 'agent_message', text: 'value.txt now says right.' } },
    { type: 'turn.completed', usage: { input_tokens: 2400, cached_input_tokens: 1200, output_tokens: 90 } },
  );

  it('reads agent messages, command executions with exit codes and output, file changes and completed turns', () => {
    const parsed = parseAgentOutput('codex-json', `[2026-12-01T06:00:00] OpenAI Codex v0.171.0\n${stdout}`);
    expect(parsed.finalMessage).toBe('value.txt now says right.');
    expect(parsed.turns).toBe(1);
    expect(parsed.commands).toEqual([
      { command: "bash -lc 'cat value.txt'", exitCode: 0, toolId: 'item_1' },
      { command: "bash -lc 'sh check.sh'", exitCode: 1, toolId: 'item_3' },
    ]);
    expect(parsed.tools.map((t) => [t.name, t.ok])).toEqual([
      ['command_execution', true],
      ['file_change', true],
      ['command_execution', false],
    ]);
    expect(parsed.tools[0]?.output).toBe('wrong\n');
  });

  it('keeps a command still running when the agent was stopped, and a failed turn as the error', () => {
    const cut = lines(
      {
        type: 'item.started',
        item: { id: 'item_1', type: 'command_execution', command: 'sleep 100', aggregated_output: '', exit_code: null, status: 'in_progress' },
      },
      { type: 'turn.failed', error: { message: 'stream disconnected before completion' } },
    );
    const parsed = parseAgentOutput('codex-json', cut);
    expect(parsed.commands).toEqual([{ command: 'sleep 100', exitCode: null, toolId: 'item_1' }]);
    expect(parsed.tools[0]?.ok).toBeUndefined();
    expect(parsed.error).toBe('stream disconnected before completion');
    expect(parsed.turns).toBeUndefined();
  });
});

describe('gemini-json', () => {
  it("reads Gemini CLI's pretty-printed object: response and the model requests of its stats", () => {
    const output = {
      session_id: 'abc',
      response: 'I changed value.txt.',
      stats: {
        models: { 'gemini-2.5-pro': { api: { totalRequests: 3, totalErrors: 0, totalLatencyMs: 900 }, tokens: { prompt: 100, candidates: 20, total: 120 } } },
        tools: { totalCalls: 2, totalSuccess: 2, byName: {} },
        files: { totalLinesAdded: 1, totalLinesRemoved: 1 },
      },
    };
    const parsed = parseAgentOutput('gemini-json', `Loaded cached credentials.\n${JSON.stringify(output, null, 2)}\n`);
    expect(parsed.finalMessage).toBe('I changed value.txt.');
    expect(parsed.turns).toBe(3);
    const failed = parseAgentOutput('gemini-json', JSON.stringify({ error: { type: 'FatalAuthenticationError', message: 'no key', code: 41 } }, null, 2));
    expect(failed.error).toBe('no key');
  });

  it("reads Qwen Code's JSON array of Claude-style messages", () => {
    const messages = [
      { type: 'system', subtype: 'init', session_id: 'q1', model: 'qwen3-coder' },
      {
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'run_shell_command', input: { command: 'ls' } }] },
      },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'value.txt', is_error: false }] } },
      { type: 'result', subtype: 'success', is_error: false, num_turns: 2, result: 'Listed the files.' },
    ];
    const parsed = parseAgentOutput('gemini-json', `${JSON.stringify(messages)}\n`);
    expect(parsed.finalMessage).toBe('Listed the files.');
    expect(parsed.turns).toBe(2);
    expect(parsed.tools).toEqual([{ id: 'call_1', name: 'run_shell_command', input: { command: 'ls' }, output: 'value.txt', ok: true }]);
  });

  it("reads Gemini CLI's stream-json events, shell commands included", () => {
    const stdout = lines(
      { type: 'init', timestamp: 't', session_id: 's', model: 'gemini-2.5-pro' },
      { type: 'message', role: 'user', content: 'fix it' },
      { type: 'tool_use', timestamp: 't', tool_name: 'run_shell_command', tool_id: 'rsc_1', parameters: { command: 'cat value.txt' } },
      { type: 'tool_result', timestamp: 't', tool_id: 'rsc_1', status: 'success', output: 'wrong' },
      { type: 'message', role: 'assistant', content: 'Fixed ', delta: true },
      { type: 'message', role: 'assistant', content: 'it.', delta: true },
      { type: 'result', status: 'success', stats: { total_tokens: 50, duration_ms: 10 } },
    );
    const parsed = parseAgentOutput('gemini-json', stdout);
    expect(parsed.finalMessage).toBe('Fixed it.');
    expect(parsed.commands).toEqual([{ command: 'cat value.txt', toolId: 'rsc_1' }]);
    expect(parsed.tools[0]).toMatchObject({ name: 'run_shell_command', output: 'wrong', ok: true });
  });
});

describe('text', () => {
  it('takes the last non-empty paragraph as the final message', () => {
    expect(parseAgentOutput('text', 'working…\nread value.txt\n\nAll done.\nvalue.txt says right.\n\n\n').finalMessage).toBe(
      'All done.\nvalue.txt says right.',
    );
    expect(parseAgentOutput('text', '  \n').finalMessage).toBeUndefined();
  });
});
