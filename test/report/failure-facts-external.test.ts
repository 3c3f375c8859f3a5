import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeExternalTrajectory } from '../../src/agents/external/trajectory.js';
import { parseSseBlock } from '../../src/gateway/sse.js';
import { turnReader } from '../../src/gateway/turn-readers.js';
import type { ModelTurn } from '../../src/gateway/index.js';
import type { MeteredApi } from '../../src/gateway/usage-readers.js';
import { failureFacts, type FactTrajectoryEvent } from '../../src/report/failure-facts.js';
import { useTempDirs } from '../helpers/tmp.js';

/*
 * The committed recordings of the five external agents on js-slugify (examples/cassettes/agents,
 * made by test/agents/external/real-agents.test.ts against the scripted upstream). Each session
 * reads src/slugify.mjs, writes the fix in its second turn (Claude Code's Write, Codex's and
 * OpenCode's apply_patch, Gemini CLI's and Qwen Code's write_file) and ends in its third, and
 * none runs the tests. The gateway's turns are read from each recorded response as the gateway
 * reads them (turn-readers.ts) and written as a trajectory by the code a run uses
 * (writeExternalTrajectory); the agents' own output is not in a cassette, so the calls are known
 * from the turns alone.
 */
const tempDir = useTempDirs();
const AGENTS = ['claude-code', 'codex', 'gemini-cli', 'opencode', 'qwen-code'] as const;

interface Exchange {
  type: 'exchange';
  seq: number;
  api: MeteredApi;
  response: { status: number; body?: string; events?: string[] };
}

function recordedTurns(agent: string): ModelTurn[] {
  const file = resolve('examples/cassettes/agents', 'js-slugify', agent, '0.jsonl');
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string });
  return lines
    .filter((l): l is Exchange => l.type === 'exchange')
    .map((x) => {
      const reader = turnReader(x.api);
      if (x.response.events) for (const raw of x.response.events) reader.event(parseSseBlock(raw));
      else reader.body(x.response.body ?? '');
      return { seq: x.seq, api: x.api, at: '2026-12-01T06:00:00.000Z', status: x.response.status, latencyMs: 0, ...reader.result() };
    });
}

describe.each(AGENTS)('failure facts of the committed %s recording', (agent) => {
  it('the fix written at turn 2 is the last effective change, one turn before the end; no test run, no repeats', () => {
    const dir = tempDir();
    const turns = recordedTurns(agent);
    expect(turns).toHaveLength(3);
    writeExternalTrajectory({
      attemptDir: dir,
      spec: agent,
      instruction: 'fix slugify',
      limits: {},
      turns,
      parsed: { tools: [], commands: [] },
      result: { stopReason: 'completed' },
      startedAt: Date.parse('2026-12-01T06:00:00.000Z'),
    });
    const trajectory = readFileSync(join(dir, 'trajectory.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as FactTrajectoryEvent);
    const facts = failureFacts({
      trajectory,
      commands: [],
      changedFiles: ['src/slugify.mjs'],
      testCommand: 'node --test test/',
      failToPass: ['slugify > strips leading and trailing punctuation'],
      allowedPaths: [],
    });
    expect(facts.tests).toEqual({ ran: false, firstTurn: null, firstCommand: null });
    expect(facts.afterLastChange?.turns).toBe(1);
    expect(facts.repeats).toEqual({ commands: 0, edits: 0, maxSameCommand: 0, maxSameEdit: 1 });
    expect(facts.outsideChanges).toEqual([]);
    expect(facts.stop).toEqual({ kind: 'own', reason: 'completed' });
    // Without the agent's output there is no tool result to have seen.
    expect(facts.sawFailingOutput).toBe(false);
  });
});
