import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../../src/domain/config/index.js';
import { executeRun } from '../../../src/engine/index.js';
import type { AgentResult, AttemptResult } from '../../../src/core/types/index.js';
import { startScriptedUpstream } from '../../../scripts/scripted-upstream.mjs';
import { attemptBudget } from '../../helpers/budget.js';
import { crucible } from '../../helpers/cli.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();
const TASKS = resolve('examples/tasks.yaml');
const CASSETTES = resolve('examples/cassettes/quickstart');
const MODEL = 'openai:gpt-4.1-mini';
const NO_KEYS = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined };

function attempts(stateDir: string): AttemptResult[] {
  const runs = join(stateDir, 'runs');
  const [run] = readdirSync(runs);
  const dir = join(runs, run as string, 'attempts');
  return readdirSync(dir)
    .map((id) => JSON.parse(readFileSync(join(dir, id, 'attempt.json'), 'utf8')) as AttemptResult)
    .sort((a, b) => a.taskId.localeCompare(b.taskId));
}

/** What must not change between a recording and its replays; tool and test wall times may. */
function outcome(a: AttemptResult): unknown {
  const { timings, ...agent } = a.agentResult as AgentResult;
  return {
    task: a.taskId,
    verdict: a.verdict,
    cause: a.cause,
    diff: a.diff?.filesChanged,
    f2p: a.tests?.failToPass,
    agent: { ...agent, replay: undefined },
    modelMs: timings?.modelMs,
  };
}

describe('the committed quick-start cassette', () => {
  it(
    'replays offline without a key, twice in fresh state, to the same attempts with tokens and cost',
    () => {
      const args = ['run', TASKS, '--model', MODEL, '--replay', CASSETTES, '--task', 'js-slugify', '--task', 'py-median', '--sandbox', 'local', '-q'];
      const runs = [tempDir(), tempDir()].map((out) => {
        const result = crucible([...args, '--out', out], { env: NO_KEYS, attempts: 2 });
        expect(result.status, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/cache read/);
        return attempts(out);
      });
      const [first, second] = runs as [AttemptResult[], AttemptResult[]];
      expect(first.map((a) => [a.taskId, a.verdict, a.agentResult?.stopReason])).toEqual([
        ['js-slugify', 'PASS', 'submitted'],
        ['py-median', 'PASS', 'submitted'],
      ]);
      for (const a of first) {
        expect(a.agentResult?.replay).toEqual({ looseMatches: 0, misses: 0 });
        expect(a.agentResult?.usage?.inputTokens).toBeGreaterThan(0);
        expect(a.agentResult?.usage?.costUsd).toBeGreaterThan(0);
      }
      expect(second.map(outcome)).toEqual(first.map(outcome));
    },
    attemptBudget(2 + 2),
  );

  it('without --replay and without the key, fails at once with one line naming the variable', () => {
    const out = tempDir();
    const result = crucible(['run', TASKS, '--model', MODEL, '--out', out], { env: NO_KEYS });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/OPENAI_API_KEY is not set/);
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });

  it('refuses a --max-tokens below the smallest request the agent can send before any attempt starts', () => {
    const out = tempDir();
    // The built-in agent sets no output limit, so each request holds gpt-4.1-mini's 32,768 output tokens.
    const result = crucible(
      ['run', TASKS, '--model', MODEL, '--replay', CASSETTES, '--task', 'js-slugify', '--max-tokens', '2000', '--sandbox', 'local', '-q', '--out', out],
      { env: NO_KEYS },
    );
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /--max-tokens 2000: the smallest request agent openai:gpt-4\.1-mini can send may use up to 33792 tokens .*fix: raise --max-tokens to at least 33792/,
    );
    expect(existsSync(join(out, 'runs'))).toBe(false);
  });
});

describe('record, then replay', () => {
  it('gives the identical attempt result', async () => {
    const upstream = await startScriptedUpstream();
    const taskSet = loadTaskSet(TASKS);
    const tasks = taskSet.tasks.filter((t) => t.id === 'js-sortby');
    const cassettes = tempDir();
    const run = (mode: 'record' | 'replay', env: Record<string, string>) =>
      executeRun({
        taskSetFile: TASKS,
        tasks,
        agents: [MODEL],
        trials: 1,
        stateDir: tempDir(),
        settings: { sandbox: 'local' },
        history: false,
        models: { mode, cassetteDir: cassettes, baseUrl: upstream.baseUrl, env },
      });
    try {
      const recorded = await run('record', { OPENAI_API_KEY: 'scripted-upstream-ignores-keys' });
      await upstream.close();
      const replayed = await run('replay', {});
      const [a] = attempts(join(recorded.runDir, '..', '..'));
      const [b] = attempts(join(replayed.runDir, '..', '..'));
      expect(a).toMatchObject({ verdict: 'PASS', agentResult: { stopReason: 'submitted', turns: 6 } });
      expect(outcome(b as AttemptResult)).toEqual(outcome(a as AttemptResult));
      expect(b?.agentResult?.replay).toEqual({ looseMatches: 0, misses: 0 });
      expect(readFileSync(join(replayed.runDir, 'attempts', b?.attemptId as string, 'diff.patch'), 'utf8')).toBe(
        readFileSync(join(recorded.runDir, 'attempts', a?.attemptId as string, 'diff.patch'), 'utf8'),
      );
    } finally {
      await upstream.close().catch(() => undefined);
    }
  });
});
