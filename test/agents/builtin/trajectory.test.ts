import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTrajectory, readTrajectory, trajectoryWriter } from '../../../src/agents/builtin/trajectory.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();

describe('trajectory.jsonl', () => {
  it('reads what the writer wrote, skips a torn last line, and formats it for show', () => {
    const file = join(tempDir(), 'trajectory.jsonl');
    let clock = 0;
    const writer = trajectoryWriter(file, () => (clock += 500));
    writer.write({ type: 'start', v: 1, model: 'openai:gpt-4.1-mini', system: 's', instruction: 'fix', tools: ['bash', 'submit'], limits: { maxTurns: 50 } });
    writer.write({ type: 'turn', turn: 1, text: 'Looking.', toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'ls' } }], finishReason: 'tool-calls', usage: { inputTokens: 1200, outputTokens: 20, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 0 }, modelMs: 800, retries: [{ status: 429, waitMs: 2000, error: 'slow down' }] });
    writer.write({ type: 'tool', turn: 1, id: 'c1', name: 'bash', input: { command: 'ls' }, ok: true, output: 'a.py', outputChars: 4, ms: 12 });
    writer.write({ type: 'end', stopReason: 'submitted', turns: 1, toolCalls: 1, summary: 'done' });
    appendFileSync(file, '{"type":"tool","t":99');
    const events = readTrajectory(file);
    expect(events.map((e) => [e.type, e.t])).toEqual([['start', 500], ['turn', 1000], ['tool', 1500], ['end', 2000]]);
    expect(events.every((e) => !Number.isNaN(Date.parse(e.at)))).toBe(true);
    expect(formatTrajectory(events).split('\n')).toEqual([
      '[0.5s] openai:gpt-4.1-mini  tools: bash, submit',
      '[1.0s] turn 1: 1200 in (1024 cached), 20 out, 800 ms, 1 retries',
      '  Looking.',
      '  → bash {"command":"ls"}',
      '  ← bash (12 ms)',
      '      a.py',
      '[2.0s] stopped: submitted after 1 turns, 1 tool calls',
      '  done',
    ]);
  });

  it('refuses a bad line in the middle', () => {
    const file = join(tempDir(), 'trajectory.jsonl');
    writeFileSync(file, '{"type":"start"}\nnot json\n{"type":"end"}\n');
    expect(() => readTrajectory(file)).toThrow(/:2: not a JSON line/);
  });
});
