// An in-process stand-in for runAttempt, shared by the engine tests (TypeScript, through vitest)
// and the kill driver (a plain Node child process, which cannot load TypeScript on Node 20).
// It writes attempt.json the way runAttempt does (tmp file + rename) and takes a little time.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';

/** Synthetic tasks: no YAML, no repo on disk (the fake runner never reads them). */
export function fakeTasks(dir, count, { version = '1', instruction = 'fix it' } = {}) {
  return Array.from({ length: count }, (_, i) => ({
    id: `task-${i}`,
    version,
    sourceFile: join(dir, 'tasks.yaml'),
    repo: { kind: 'local', path: join(dir, 'repos', `repo-${i % 2}`) },
    instruction: `${instruction} ${i}`,
    setup: [],
    tests: { command: 'true', failToPass: ['t'], passToPass: 'all_others', testPaths: [] },
    policy: {
      preset: 'default',
      forbiddenPaths: [],
      allowedPaths: [],
      unsafeCommands: [],
      secrets: { paths: [], literals: [], presets: [] },
      severities: {},
    },
    limits: { agentTimeoutMs: 60_000, testTimeoutMs: 60_000, setupTimeoutMs: 60_000 },
    metadata: { tags: i % 2 === 0 ? ['even'] : ['odd'], category: 'bugfix', difficulty: i < 2 ? 'easy' : 'hard' },
  }));
}

export function fakeAgent(spec) {
  return { name: spec, run: async () => ({ stopReason: 'completed' }) };
}

/** `good` always passes, `bad` always fails, anything else passes on even trials. */
export function defaultCause(plan) {
  if (plan.agent === 'good') return 'passed';
  if (plan.agent === 'bad') return 'tests_failed';
  return plan.trial % 2 === 0 ? 'passed' : 'tests_failed';
}

const VERDICT = { passed: 'PASS', harness_error: 'ERROR' };

/**
 * options.delayMs: [min, max] wait per attempt (abortable through env.signal, like a real agent);
 * options.causeOf(plan): the cause, or 'throw' to make the runner throw;
 * options.onStart(plan): called when an attempt starts;
 * options.usage: the gateway usage every attempt reports.
 */
export function fakeRunner(options = {}) {
  const [min, max] = options.delayMs ?? [0, 0];
  const causeOf = options.causeOf ?? defaultCause;
  return async (plan, _task, _agent, env) => {
    options.onStart?.(plan);
    const startedAt = new Date();
    const dir = join(env.runDir, 'attempts', plan.attemptId);
    // Like runAttempt's prepare: a directory left by an interrupted attempt is not evidence.
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const wait = min + Math.random() * (max - min);
    if (wait > 0) await abortableDelay(wait, env.signal);
    const cause = causeOf(plan);
    if (cause === 'throw') throw new Error(`runner blew up on ${plan.attemptId}`);
    const finishedAt = new Date();
    const result = {
      ...plan,
      schemaVersion: 1,
      verdict: VERDICT[cause] ?? 'FAIL',
      cause,
      message: cause,
      score: cause === 'passed' ? 100 : 0,
      sandbox: env.sandbox,
      checks: [],
      agentResult: {
        stopReason: env.signal?.aborted ? 'error' : 'completed',
        turns: 2,
        toolCalls: 3,
        ...(options.usage ? { usage: { cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, requests: 2, ...options.usage } } : {}),
      },
      timings: { prepareMs: 1, agentMs: Math.round(wait), verifyMs: 1, totalMs: finishedAt - startedAt },
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
    };
    const file = join(dir, 'attempt.json');
    await writeFile(`${file}.tmp`, `${JSON.stringify(result, null, 2)}\n`);
    await rename(`${file}.tmp`, file);
    return result;
  };
}

function abortableDelay(ms, signal) {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
