import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAgentOutput } from '../../../src/domain/agents/external/outputs/index.js';
import { writeExternalTrajectory } from '../../../src/domain/agents/external/trajectory.js';
import type { ModelTurn } from '../../../src/infra/gateway/index.js';
import { parseTrajectory } from '../../../src/features/report/trajectory.js';
import { replayedTurns } from '../../helpers/replayed-turns.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();
const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });

const turns: ModelTurn[] = [
  {
    seq: 0,
    api: 'messages',
    at: '2026-12-01T06:00:00.000Z',
    status: 200,
    model: 'claude-sonnet-4-5',
    text: 'Let me look.',
    toolCalls: [{ id: 'toolu_1', name: 'Bash', input: { command: 'cat value.txt' } }],
    finishReason: 'tool_use',
    usage: usage(100, 10),
    latencyMs: 400,
  },
  {
    seq: 1,
    api: 'messages',
    at: '2026-12-01T06:00:01.000Z',
    status: 200,
    text: 'Done.',
    toolCalls: [],
    finishReason: 'end_turn',
    usage: usage(150, 5),
    latencyMs: 300,
  },
];

const stdout = [
  { type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'cat value.txt' } }] } },
  { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'wrong' }] } },
  { type: 'assistant', message: { content: [{ type: 'tool_use', id: 'toolu_x', name: 'Write', input: { file_path: 'a', content: 'b' } }] } },
  { type: 'result', result: 'Done.', num_turns: 2 },
]
  .map((l) => JSON.stringify(l))
  .join('\n');

describe('writeExternalTrajectory', () => {
  it("writes the built-in agent's format: the gateway's turns, each followed by the results the agent reported for its calls", () => {
    const dir = tempDir();
    const parsed = parseAgentOutput('claude-stream-json', stdout);
    const file = writeExternalTrajectory({
      startedAt: Date.parse('2026-12-01T05:59:59.500Z'),
      attemptDir: dir,
      spec: 'claude-code:claude-sonnet-4-5',
      instruction: 'Fix value.txt',
      limits: { timeoutMs: 1000, maxTurns: 50 },
      turns,
      parsed,
      result: { stopReason: 'end_turn', turns: 2, toolCalls: 2 },
    });
    const raw = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(raw.map((e) => [e.type, e.turn ?? null, e.id ?? null])).toEqual([
      ['start', null, null],
      ['turn', 1, null],
      ['tool', 1, 'toolu_1'],
      ['turn', 2, null],
      // Reported, but asked for in no metered turn: kept after the last one.
      ['tool', 2, 'toolu_x'],
      ['end', null, null],
    ]);
    expect(raw[0]).toMatchObject({ model: 'claude-code:claude-sonnet-4-5', tools: ['Bash', 'Write'], instruction: 'Fix value.txt' });
    // Timed as it happened, not as it was written: each turn when its answer was complete.
    expect(raw.slice(0, 4).map((e) => [e.t, e.at])).toEqual([
      [0, '2026-12-01T05:59:59.500Z'],
      [900, '2026-12-01T06:00:00.400Z'],
      [900, '2026-12-01T06:00:00.400Z'],
      [1800, '2026-12-01T06:00:01.300Z'],
    ]);
    expect(raw[2]).toMatchObject({ name: 'Bash', ok: true, output: 'wrong', outputChars: 5 });
    // The agent's own count, summed from the turns; the attempt's usage is the gateway's.
    expect(raw.at(-1)).toMatchObject({ stopReason: 'end_turn', turns: 2, usage: { inputTokens: 250, outputTokens: 15, requests: 2 }, summary: 'Done.' });

    const read = parseTrajectory(readFileSync(file, 'utf8'));
    expect(read.unreadableLines).toBe(0);
    expect(read.events.map((e) => e.role)).toEqual(['harness', 'assistant', 'tool', 'assistant', 'tool', 'harness']);
    expect(read.events[1]).toMatchObject({ title: 'turn 1: Let me look.', tokens: 110, durationMs: 400, tool: 'Bash' });
  });
});

/*
 * The recorded sessions of three real agents on js-slugify (examples/cassettes/agents), replayed
 * through the gateway as a run replays them, with what each agent printed when it ran on that
 * replay (test/fixtures/agents/outputs, see its README).
 */
const CASSETTES = resolve('examples/cassettes/agents');
const OUTPUTS = resolve('test/fixtures/agents/outputs');
const FORMATS = { codex: 'codex-json', 'claude-code': 'claude-stream-json', 'qwen-code': 'gemini-json' } as const;
type Recorded = keyof typeof FORMATS;

async function recordedTrajectory(agent: Recorded, stdout = readFileSync(join(OUTPUTS, `${agent}-js-slugify.stdout`), 'utf8')) {
  const { turns, usage } = await replayedTurns(CASSETTES, ['js-slugify', agent, '0'], join(CASSETTES, 'js-slugify', agent, '0.jsonl'));
  expect(usage.replayMisses).toEqual([]);
  const dir = tempDir();
  const file = writeExternalTrajectory({
    startedAt: Date.parse(turns[0]?.at ?? '') - 100,
    attemptDir: dir,
    spec: agent,
    instruction: 'fix slugify',
    limits: {},
    turns,
    parsed: parseAgentOutput(FORMATS[agent], stdout),
    result: { stopReason: 'end_turn' },
  });
  const events = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { turns, events };
}

const outline = (events: ReadonlyArray<Record<string, unknown>>) => events.map((e) => [e.type, e.turn ?? null, e.name ?? null]);

describe('writeExternalTrajectory on recorded sessions', () => {
  it.each([
    ['codex', 'You are Codex, a coding agent', ['exec_command', 'apply_patch']],
    ['claude-code', 'x-anthropic-billing-header', ['Read', 'Write']],
    ['qwen-code', 'You are Qwen Code', ['read_file', 'write_file']],
  ] as const)('%s: the system prompt the gateway forwarded, and each call followed by its own result, in order', async (agent, system, [read, write]) => {
    const { turns, events } = await recordedTrajectory(agent);
    expect(String(events[0]?.system)).toMatch(new RegExp(`^${system}`));
    // Whole, as the request carried it: the first request's system text, not a part of it.
    expect(events[0]?.system).toBe(turns[0]?.system);
    expect(outline(events)).toEqual([
      ['start', null, null],
      ['turn', 1, null],
      ['tool', 1, read],
      ['turn', 2, null],
      ['tool', 2, write],
      ['turn', 3, null],
      ['end', null, null],
    ]);
    const tools = events.filter((e) => e.type === 'tool');
    // Each result under its call's id, with the output the model was sent back.
    expect(tools.map((t) => t.id)).toEqual(turns.slice(0, 2).map((t) => t.toolCalls[0]?.id));
    expect(tools.map((t) => t.output)).toEqual(turns.slice(1).map((t) => t.toolResults?.[0]?.output));
    expect(String(tools[0]?.output)).toContain('export function slugify(text)');
    expect(tools.every((t) => t.ok === true)).toBe(true);
  });

  it('takes whether a Codex command failed from its own report, paired with the call it reports, and pairs nothing it cannot tell apart', async () => {
    const stdout = readFileSync(join(OUTPUTS, 'codex-js-slugify.stdout'), 'utf8');
    const failed = stdout.replace('"exit_code":0,"status":"completed"', '"exit_code":1,"status":"failed"');
    expect(failed).not.toBe(stdout);
    const { events } = await recordedTrajectory('codex', failed);
    expect(events.filter((e) => e.type === 'tool').map((e) => [e.turn, e.name, e.ok])).toEqual([
      [1, 'exec_command', false],
      [2, 'apply_patch', true],
    ]);

    // Two commands reported for one shell call: which is which is not known, so both are kept after the last turn as reported.
    const lines = stdout.trim().split('\n');
    const command = lines.find((l) => l.includes('"item.completed"') && l.includes('command_execution')) as string;
    const twice = [...lines, command.replace('"id":"item_0"', '"id":"item_9"')].join('\n');
    const unpaired = await recordedTrajectory('codex', twice);
    expect(outline(unpaired.events)).toEqual([
      ['start', null, null],
      ['turn', 1, null],
      ['tool', 1, 'exec_command'],
      ['turn', 2, null],
      ['tool', 2, 'apply_patch'],
      ['turn', 3, null],
      ['tool', 3, 'command_execution'],
      ['tool', 3, 'command_execution'],
      ['end', null, null],
    ]);
    // The call still has the result the gateway saw sent back for it.
    expect(String(unpaired.events[2]?.output)).toContain('Process exited with code 0');
  });

  it('gives a call id the model reuses (Gemini numbers calls by position) each result in turn', () => {
    const dir = tempDir();
    const read = (seq: number, results: ModelTurn['toolResults'], calls: number): ModelTurn => ({
      seq,
      api: 'gemini',
      at: `2026-12-01T06:00:0${seq}.000Z`,
      status: 200,
      toolCalls: Array.from({ length: calls }, () => ({ id: 'read_file#0', name: 'read_file', input: { path: 'a' } })),
      ...(results ? { toolResults: results } : {}),
      latencyMs: 10,
    });
    const file = writeExternalTrajectory({
      startedAt: Date.parse('2026-12-01T06:00:00.000Z'),
      attemptDir: dir,
      spec: 'gemini-cli',
      instruction: 'x',
      limits: {},
      turns: [read(0, undefined, 1), read(1, [{ id: 'read_file#0', output: 'first' }], 1), read(2, [{ id: 'read_file#0', output: 'second' }], 0)],
      parsed: { tools: [], commands: [] },
      result: { stopReason: 'end_turn' },
    });
    const tools = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.type === 'tool');
    expect(tools.map((t) => [t.turn, t.output])).toEqual([
      [1, 'first'],
      [2, 'second'],
    ]);
  });
});
