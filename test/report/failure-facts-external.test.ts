import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAgentOutput, type ParsedOutput } from '../../src/domain/agents/external/outputs/index.js';
import { writeExternalTrajectory } from '../../src/domain/agents/external/trajectory.js';
import { failureFacts, type FactTrajectoryEvent } from '../../src/domain/failures/failure-facts.js';
import { replayedTurns } from '../helpers/replayed-turns.js';
import { useTempDirs } from '../helpers/tmp.js';

/*
 * The committed recordings of the five external agents on js-slugify (examples/cassettes/agents,
 * made by test/agents/external/real-agents.test.ts against the scripted upstream). Each session
 * reads src/slugify.mjs, writes the fix in its second turn (Claude Code's Write, Codex's and
 * OpenCode's apply_patch, Gemini CLI's and Qwen Code's write_file) and ends in its third, and
 * none runs the tests. Each session is replayed through the gateway as a run replays it, and its
 * turns (with the tool results each request sent back) are written as a trajectory by the code a
 * run uses (writeExternalTrajectory); the agents' own output is not in a cassette, so the results
 * are the gateway's alone.
 */
const tempDir = useTempDirs();
const AGENTS = ['claude-code', 'codex', 'gemini-cli', 'opencode', 'qwen-code'] as const;
const CASSETTES = resolve('examples/cassettes/agents');

/** The three agents whose output on that replay is recorded (test/fixtures/agents/outputs): read too, as a run reads it. */
const OUTPUTS = { codex: 'codex-json', 'claude-code': 'claude-stream-json', 'qwen-code': 'gemini-json' } as const;
const CASES = [
  ...AGENTS.map((agent) => ({ agent, output: 'none' as const })),
  ...(Object.keys(OUTPUTS) as Array<keyof typeof OUTPUTS>).map((agent) => ({ agent, output: 'recorded' as const })),
];

function parsedOutput(agent: string, output: 'none' | 'recorded'): ParsedOutput {
  if (output === 'none' || !(agent in OUTPUTS)) return { tools: [], commands: [] };
  const stdout = readFileSync(resolve('test/fixtures/agents/outputs', `${agent}-js-slugify.stdout`), 'utf8');
  return parseAgentOutput(OUTPUTS[agent as keyof typeof OUTPUTS], stdout);
}

describe.each(CASES)('failure facts of the committed $agent recording (agent output: $output)', ({ agent, output }) => {
  it('the fix written at turn 2 is the last effective change, one turn before the end; no test run, no repeats', async () => {
    const dir = tempDir();
    const { turns } = await replayedTurns(CASSETTES, ['js-slugify', agent, '0'], resolve(CASSETTES, 'js-slugify', agent, '0.jsonl'));
    expect(turns).toHaveLength(3);
    writeExternalTrajectory({
      attemptDir: dir,
      spec: agent,
      instruction: 'fix slugify',
      limits: {},
      turns,
      parsed: parsedOutput(agent, output),
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
    // Each call's result follows it (the file read, the write's confirmation), the agent's own reports
    // of its tools matched to those calls: none is left over after the last turn.
    expect(trajectory.filter((e) => e.type === 'tool').map((e) => e.turn)).toEqual([1, 2]);
    expect(facts.toolErrors).toEqual({ tools: 0, commands: 0 });
    // No output held the failing test's name: the agent never ran the tests.
    expect(facts.sawFailingOutput).toBe(false);
  });
});
