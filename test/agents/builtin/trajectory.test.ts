import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trajectoryWriter } from '../../../src/domain/agents/builtin/trajectory.js';
import { formatTrajectoryText, loadTrajectory } from '../../../src/features/report/index.js';
import { useTempDirs } from '../../helpers/tmp.js';
import { writtenEvents } from './helpers.js';

const tempDir = useTempDirs();

describe('trajectory.jsonl', () => {
  it('is read back by the one trajectory reader, which skips a torn last line, and formatted for show', async () => {
    const dir = tempDir();
    const file = join(dir, 'trajectory.jsonl');
    let clock = 0;
    const writer = trajectoryWriter(file, () => (clock += 500));
    writer.write({ type: 'start', v: 1, model: 'openai:gpt-4.1-mini', system: 's', instruction: 'fix', tools: ['bash', 'submit'], limits: { maxTurns: 50 } });
    writer.write({
      type: 'turn',
      turn: 1,
      text: 'Looking.',
      toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'ls' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 1200, outputTokens: 20, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 0 },
      modelMs: 800,
      retries: [{ status: 429, waitMs: 2000, error: 'slow down' }],
    });
    writer.write({ type: 'tool', turn: 1, id: 'c1', name: 'bash', input: { command: 'ls' }, ok: true, output: 'a.py', outputChars: 4, ms: 12 });
    writer.write({ type: 'end', stopReason: 'submitted', turns: 1, toolCalls: 1, summary: 'done' });
    const written = writtenEvents(file);
    expect(written.map((e) => [e.type, e.t])).toEqual([
      ['start', 500],
      ['turn', 1000],
      ['tool', 1500],
      ['end', 2000],
    ]);
    expect(written.every((e) => !Number.isNaN(Date.parse(e.at)))).toBe(true);

    appendFileSync(file, '{"type":"tool","t":99');
    const parsed = await loadTrajectory(dir);
    expect(parsed).toMatchObject({ total: 4, unreadableLines: 1, truncated: false });
    const lines = formatTrajectoryText(parsed ?? { events: [], total: 0, truncated: false, unreadableLines: 0 })
      .split('\n')
      .map((l) => l.replace(/^\[\d+\.\ds\] /, ''));
    expect(lines.filter((l) => !l.startsWith('    '))).toEqual([
      'openai:gpt-4.1-mini · tools: bash, submit',
      'turn 1: Looking. (1220 tokens, 800 ms)',
      '← bash {"command":"ls"} (12 ms)',
      'stopped: submitted after 1 turns, 1 tool calls',
      '1 unreadable line(s) skipped',
    ]);
    expect(lines).toContain('    retried 1×: slow down');
  });

  it('is null for an attempt without one', async () => {
    expect(await loadTrajectory(tempDir())).toBeNull();
  });
});
