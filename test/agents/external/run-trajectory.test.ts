import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAgentOutput } from '../../../src/agents/external/outputs/index.js';
import { writeExternalTrajectory } from '../../../src/agents/external/trajectory.js';
import type { ModelTurn } from '../../../src/gateway/index.js';
import { parseTrajectory } from '../../../src/report/trajectory.js';
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
