import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, streamText, tool } from 'ai';
import type { JSONSchema7 } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedAgentUpstream } from '../../../scripts/scripted-agent-upstream.mjs';
import { useTempDirs } from '../../helpers/tmp.js';

// The scripted upstream's Anthropic Messages and Chat Completions modules, driven over HTTP the way
// Claude Code and Qwen Code (or OpenCode) call them; streams are read by the AI SDK's own parsers.

const tempDir = useTempDirs();
const REPO = resolve('examples/repos/js-slugify');
const INSTRUCTION = readFileSync(resolve('examples/tasks.yaml'), 'utf8').match(/id: js-slugify[\s\S]*?instruction: \|\n([\s\S]*?)\n {4}tests:/)?.[1] ?? '';
const SLUGIFY = '/work/space/src/slugify.mjs';

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
});

async function upstream(plan: 'fix' | 'tamper' = 'fix'): Promise<string> {
  const scripted = await startScriptedAgentUpstream({ plan });
  closers.push(scripted.close);
  return scripted.baseUrl;
}

/** The oracle's src/slugify.mjs, by applying the patch to a copy of the repository. */
function oracleSlugify(): string {
  const dir = tempDir();
  cpSync(REPO, dir, { recursive: true });
  execFileSync('git', ['apply', resolve('examples/oracles/js-slugify.patch')], { cwd: dir });
  return readFileSync(join(dir, 'src/slugify.mjs'), 'utf8');
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

const schema = (...names: string[]): JSONSchema7 => ({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) });
const CLAUDE_TOOLS = [
  { name: 'Bash', input_schema: schema('command') },
  { name: 'Read', input_schema: schema('file_path', 'offset', 'limit') },
  { name: 'Write', input_schema: schema('file_path', 'content') },
  { name: 'Edit', input_schema: schema('file_path', 'old_string', 'new_string') },
];
const claudeSystem = [{ type: 'text', text: 'Environment\n - Primary working directory: /work/space\n - Is a git repository: true' }];
const toolResult = (id: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });

describe('scripted upstream, Anthropic Messages', () => {
  it('asks Claude Code to Read the file the oracle changes, by absolute path, then Write the oracle content, then ends the turn', async () => {
    const base = await upstream();
    const user = { role: 'user', content: [{ type: 'text', text: INSTRUCTION }] };
    const request = { model: 'claude-sonnet-4-5', max_tokens: 1000, system: claudeSystem, tools: CLAUDE_TOOLS };

    const first = await post(`${base}/v1/messages?beta=true`, { ...request, messages: [user] });
    expect(first['stop_reason']).toBe('tool_use');
    const read = (first['content'] as Array<Record<string, unknown>>).find((b) => b['type'] === 'tool_use');
    expect(read).toMatchObject({ name: 'Read', input: { file_path: SLUGIFY } });

    const assistant = { role: 'assistant', content: first['content'] };
    const second = await post(`${base}/v1/messages`, { ...request, messages: [user, assistant, toolResult(String(read?.['id']))] });
    const write = (second['content'] as Array<Record<string, unknown>>).find((b) => b['type'] === 'tool_use');
    expect(write).toMatchObject({ name: 'Write', input: { file_path: SLUGIFY, content: oracleSlugify() } });

    const third = await post(`${base}/v1/messages`, {
      ...request,
      messages: [user, assistant, toolResult('a'), { role: 'assistant', content: second['content'] }, toolResult('b')],
    });
    expect(third['stop_reason']).toBe('end_turn');
    expect(third['content']).toEqual([{ type: 'text', text: 'Fixed: changed src/slugify.mjs.' }]);
    expect((third['usage'] as Record<string, number>)['input_tokens']).toBeGreaterThan(0);
  });

  it('streams a tool call that the Anthropic SDK parses, with the edit tool when no write tool is offered', async () => {
    const base = await upstream('tamper');
    const anthropic = createAnthropic({ baseURL: `${base}/v1`, apiKey: 'dummy' });
    const tools = {
      Read: tool({ inputSchema: jsonSchema<Record<string, string>>(schema('file_path')) }),
      Edit: tool({ inputSchema: jsonSchema<Record<string, string>>(schema('file_path', 'old_string', 'new_string')) }),
    };
    const result = streamText({
      model: anthropic('claude-sonnet-4-5'),
      system: 'Primary working directory: /work/space',
      tools,
      messages: [
        { role: 'user', content: INSTRUCTION },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't0', toolName: 'Read', input: { file_path: '/work/space/test/slugify.test.mjs' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't0', toolName: 'Read', output: { type: 'text', value: 'ok' } }] },
      ],
    });
    const [call] = await result.toolCalls;
    const before = readFileSync(join(REPO, 'test/slugify.test.mjs'), 'utf8');
    expect(call?.toolName).toBe('Edit');
    const input = call?.input as Record<string, string>;
    expect(input['file_path']).toBe('/work/space/test/slugify.test.mjs');
    expect(input['old_string']).toBe(before);
    expect(input['new_string']).toContain('assert.ok(true);');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('answers side requests, token counting and unknown tool sets in plain text', async () => {
    const base = await upstream();
    const title = await post(`${base}/v1/messages`, { model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: INSTRUCTION }] });
    expect(title).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text' }] });

    const counted = await post(`${base}/v1/messages/count_tokens`, { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: INSTRUCTION }] });
    expect(counted['input_tokens']).toBeGreaterThan(0);

    const unknown = await post(`${base}/v1/messages`, {
      model: 'claude-sonnet-4-5',
      max_tokens: 50,
      tools: [{ name: 'Frobnicate', input_schema: schema('x') }],
      messages: [{ role: 'user', content: INSTRUCTION }],
    });
    expect(unknown['stop_reason']).toBe('end_turn');
    expect(JSON.stringify(unknown['content'])).toContain('Frobnicate');
  });
});

const chatTool = (name: string, ...params: string[]) => ({ type: 'function', function: { name, parameters: schema(...params) } });

describe('scripted upstream, Chat Completions', () => {
  it('asks Qwen Code to read_file then write_file with the arguments its schemas name, in its working directory', async () => {
    const base = await upstream();
    const tools = [chatTool('read_file', 'file_path', 'offset'), chatTool('write_file', 'file_path', 'content'), chatTool('run_shell_command', 'command')];
    const messages: unknown[] = [
      { role: 'system', content: 'You are Qwen Code.' },
      { role: 'user', content: `I'm currently working in the directory: /work/space\n\n${INSTRUCTION}` },
    ];
    const first = await post(`${base}/v1/chat/completions`, { model: 'qwen3-coder-plus', messages, tools });
    const [choice] = first['choices'] as Array<Record<string, Record<string, unknown>>>;
    expect(choice?.['finish_reason']).toBe('tool_calls');
    const [call] = choice?.['message']?.['tool_calls'] as Array<{ id: string; function: { name: string; arguments: string } }>;
    expect(call?.function.name).toBe('read_file');
    expect(JSON.parse(call?.function.arguments ?? '')).toEqual({ file_path: SLUGIFY });

    messages.push(choice?.['message'], { role: 'tool', tool_call_id: call?.id, content: 'ok' });
    const second = await post(`${base}/v1/chat/completions`, { model: 'qwen3-coder-plus', messages, tools });
    const [next] = second['choices'] as Array<{ message: { tool_calls: Array<{ function: { name: string; arguments: string } }> } }>;
    const write = next?.message.tool_calls[0]?.function;
    expect(write?.name).toBe('write_file');
    expect(JSON.parse(write?.arguments ?? '')).toEqual({ file_path: SLUGIFY, content: oracleSlugify() });
  });

  it("streams OpenCode's camelCase edit call so an OpenAI-compatible SDK parses it, with usage when asked", async () => {
    const base = await upstream();
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: `${base}/v1`, apiKey: 'dummy', includeUsage: true });
    const result = streamText({
      model: provider.chatModel('qwen3-coder-plus'),
      system: 'Working directory: /work/space',
      tools: {
        read: tool({ inputSchema: jsonSchema<Record<string, string>>(schema('filePath')) }),
        edit: tool({ inputSchema: jsonSchema<Record<string, string>>(schema('filePath', 'oldString', 'newString')) }),
      },
      messages: [
        { role: 'user', content: INSTRUCTION },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 't0', toolName: 'read', input: { filePath: SLUGIFY } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't0', toolName: 'read', output: { type: 'text', value: 'ok' } }] },
      ],
    });
    const [call] = await result.toolCalls;
    expect(call?.toolName).toBe('edit');
    expect(call?.input).toEqual({ filePath: SLUGIFY, oldString: readFileSync(join(REPO, 'src/slugify.mjs'), 'utf8'), newString: oracleSlugify() });
    expect((await result.usage).inputTokens).toBeGreaterThan(0);
  });

  it('streams no usage chunk unless asked, and answers a request without tools in plain text', async () => {
    const base = await upstream();
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: INSTRUCTION }] }),
    });
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')) as Record<string, unknown>);
    expect(chunks.some((c) => 'usage' in c)).toBe(false);
    expect(chunks.at(-1)?.['choices']).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  });
});
