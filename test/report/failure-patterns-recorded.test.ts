import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun } from '../../src/engine/index.js';
import { DEFAULT_MAX_TURNS } from '../../src/engine/gateway-lifecycle.js';
import { attemptFacts } from '../../src/domain/failures/failure-patterns.js';
import type { AgentFailurePatterns } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { useTempDirs } from '../helpers/tmp.js';

/*
 * The committed quick-start recording of the built-in agent, replayed in-process (no key, no
 * network): the facts are the ones a reader of its trajectory finds. js-slugify: lists, reads,
 * runs the tests at turn 3 (the 4th logged command, exit 1, naming the failing test), edits
 * src/slugify.mjs at turn 4, tests again, submits at turn 6. py-median: reads, reproduces with
 * python3 -c, edits stats.py at turn 3, runs the tests only after the fix (6 passed: it never saw
 * the failing test's output), submits at turn 6.
 */
const tempDir = useTempDirs();
const TASKS = resolve('examples/tasks.yaml');
const CASSETTES = resolve('examples/cassettes/quickstart');
const MODEL = 'openai:gpt-4.1-mini';

async function replay(taskIds: string[], limits: { maxTurns: number; maxTokens?: number }, pricingFile?: string) {
  const tasks = loadTaskSet(TASKS).tasks.filter((t) => taskIds.includes(t.id));
  const outcome = await executeRun({
    taskSetFile: TASKS,
    tasks,
    agents: [MODEL],
    trials: 1,
    stateDir: tempDir(),
    settings: { sandbox: 'local' },
    history: false,
    models: { mode: 'replay', cassetteDir: CASSETTES, env: {}, limits, ...(pricingFile !== undefined ? { pricingFile } : {}) },
  });
  const facts = (taskId: string) => {
    const a = outcome.attempts.find((x) => x.taskId === taskId);
    if (!a) throw new Error(`no attempt of ${taskId}`);
    return attemptFacts(
      join(outcome.runDir, 'attempts', a.attemptId),
      a,
      tasks.find((t) => t.id === taskId),
    ).facts;
  };
  return { outcome, facts };
}

describe('failure facts of the committed built-in agent recording', () => {
  it(
    'read from the replayed trajectories, command logs and diffs',
    async () => {
      const { outcome, facts } = await replay(['js-slugify', 'py-median'], { maxTurns: DEFAULT_MAX_TURNS });
      expect(outcome.attempts.map((a) => a.verdict)).toEqual(['PASS', 'PASS']);
      const slug = facts('js-slugify');
      expect(slug.tests).toEqual({ ran: true, firstTurn: 3, firstCommand: 3 });
      expect(slug.sawFailingOutput).toBe(true);
      expect(slug.toolErrors).toEqual({ tools: 0, commands: 1 });
      expect(slug.outsideChanges).toEqual([]);
      expect(slug.afterLastChange?.turns).toBe(2);
      expect(slug.afterLastChange?.ms).toBeGreaterThanOrEqual(0);
      expect(slug.stop).toEqual({ kind: 'own', reason: 'submitted' });
      // `cat -- src/slugify.mjs` (read, then read again by edit_file) and the test command, twice each.
      expect(slug.repeats).toMatchObject({ commands: 2, edits: 0, maxSameCommand: 2 });

      const median = facts('py-median');
      expect(median.tests).toEqual({ ran: true, firstTurn: 4, firstCommand: 4 });
      expect(median.sawFailingOutput).toBe(false);
      expect(median.toolErrors).toEqual({ tools: 0, commands: 0 });
      expect(median.afterLastChange?.turns).toBe(3);
      expect(median.stop.kind).toBe('own');
      // No failed attempt: no table.
      expect(outcome.summary.failurePatterns).toBeUndefined();
    },
    attemptBudget(2),
  );

  it(
    'a session cut by --max-tokens fails at a limit, and the table in summary.json says so with its attempt id',
    async () => {
      // With the bundled 32,768-token maximum output of gpt-4.1-mini no request could fit 2,000
      // tokens and the run would be refused before it starts; at 100 the first request (its body
      // alone is over 2,000 bytes) is what the budget refuses.
      const pricingFile = join(tempDir(), 'pricing.yaml');
      writeFileSync(pricingFile, 'openai:\n  gpt-4.1-mini: { input: 0.40, output: 1.60, cache_read: 0.10, max_output: 100 }\n');
      const { outcome, facts } = await replay(['js-slugify'], { maxTurns: DEFAULT_MAX_TURNS, maxTokens: 2000 }, pricingFile);
      const [attempt] = outcome.attempts;
      expect([attempt?.verdict, attempt?.cause]).toEqual(['FAIL', 'budget_exceeded']);
      const f = facts('js-slugify');
      expect(f.stop).toEqual({ kind: 'limit', reason: 'budget_exceeded' });
      // The session is cut before its first turn is answered: no test run, no edit.
      expect(f.tests.ran).toBe(false);
      expect(f.afterLastChange).toBeNull();
      const table = outcome.summary.failurePatterns as AgentFailurePatterns[];
      expect(table.map((a) => [a.agent, a.failed])).toEqual([[MODEL, 1]]);
      const ids = Object.fromEntries(table[0]?.patterns.map((p) => [p.id, p.attemptIds]) ?? []);
      expect(ids).toMatchObject({
        stopped_at_limit: [attempt?.attemptId],
        never_ran_tests: [attempt?.attemptId],
        no_change_kept: [attempt?.attemptId],
        never_saw_failing_test: [attempt?.attemptId],
      });
      expect(ids['stopped_on_its_own']).toBeUndefined();
      expect(table[0]?.patterns[0]?.share).toMatchObject({ rate: 1, high: 1, n: 1 });
    },
    attemptBudget(1),
  );
});
