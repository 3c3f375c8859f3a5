import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { useTempDirs } from '../helpers/tmp.js';
import { kill, startCli, startWorker, type Proc } from './processes.js';

const tempDir = useTempDirs();
const KEY = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };
/** What the upstream bills each request; the built-in agent sends two per attempt here (its answer, then after one nudge). */
const USAGE = { input_tokens: 1000, output_tokens: 100 };
const PER_ATTEMPT_TOKENS = 2 * (USAGE.input_tokens + USAGE.output_tokens);
/**
 * gpt-4.1-mini at its bundled price with a documented maximum output of 100 tokens: the built-in
 * agent sets no output limit, so at the bundled 32,768 the smallest request it can send would not
 * fit these caps and the run would be refused before it starts.
 */
const SMALL_OUTPUT_PRICING = 'openai:\n  gpt-4.1-mini: { input: 0.40, output: 1.60, cache_read: 0.10, max_output: 100 }\n';

let redis: TestRedis;
let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  redis = await startRedis({ persistence: false });
  // An OpenAI Responses upstream that answers every request with the same words and the same usage,
  // so what each attempt spends is known whichever worker runs it.
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'resp_1',
          object: 'response',
          created_at: 1,
          status: 'completed',
          error: null,
          incomplete_details: null,
          model: 'gpt-4.1-mini-2025-04-14',
          output: [
            {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'I cannot fix this.', annotations: [] }],
            },
          ],
          usage: {
            ...USAGE,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: USAGE.input_tokens + USAGE.output_tokens,
          },
        }),
      );
    });
  });
  await new Promise<void>((resolveListen) => upstream.listen(0, '127.0.0.1', resolveListen));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await redis.stop();
  await new Promise((resolveClose) => upstream.close(resolveClose));
});

interface Summary {
  planned: number;
  executed: number;
  stoppedEarly: boolean;
  runBudget?: { limits: { maxTokens?: number }; spentUsd: number; spentTokens: number; reached?: string };
}

function runOf(out: string): { runId: string; runDir: string; attemptIds: string[]; checkpoint: string[]; summary: Summary } {
  const runId = readdirSync(join(out, 'runs')).find((n) => !n.startsWith('.')) as string;
  const runDir = join(out, 'runs', runId);
  const attemptIds = readdirSync(join(runDir, 'attempts')).filter((n) => !n.startsWith('.'));
  const checkpoint = readFileSync(join(runDir, 'checkpoint.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { attemptId: string }).attemptId);
  const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
  return { runId, runDir, attemptIds, checkpoint, summary };
}

const startedIds = (worker: Proc): string[] => [...worker.output().matchAll(/started (\S+) \(task/g)].map((m) => m[1] as string);

describe('a cap on a whole distributed run', () => {
  it(
    '--max-tokens-total across two workers: the run stops at its cap, records every attempt it ran once, withdraws the queued rest and says which cap stopped it; a higher cap on resume runs the rest',
    async () => {
      const root = tempDir();
      const workers = [startWorker(redis.url, join(root, 'w1'), [], KEY), startWorker(redis.url, join(root, 'w2'), [], KEY)];
      try {
        for (const w of workers) await w.waitFor(/taking jobs from/);
        const out = join(root, 'c');
        const planned = 8;
        // The first attempt to finish reaches the cap; all 8 are queued at once (--queue's concurrency is 64).
        const cap = PER_ATTEMPT_TOKENS - 1;
        const pricing = join(root, 'pricing.yaml');
        writeFileSync(pricing, SMALL_OUTPUT_PRICING);
        const args = [
          'examples/tasks.yaml',
          '--model',
          'openai:gpt-4.1-mini',
          '--base-url',
          upstreamUrl,
          '--pricing',
          pricing,
          '--task',
          'js-slugify',
          '--runs',
          String(planned),
        ];
        const coordinator = startCli(['run', ...args, '--max-tokens-total', String(cap), '--queue', redis.url, '--out', out], KEY);
        // 1: the attempts ran and failed (the upstream fixes nothing), which is not what is tested here.
        expect(await coordinator.exited, coordinator.output()).toBe(1);

        const run = runOf(out);
        const ran = workers.flatMap(startedIds);
        // Stopped early: only what the two workers had taken before the first result came back ran.
        expect(run.summary.executed).toBeLessThan(planned);
        expect(run.summary.executed).toBeGreaterThanOrEqual(1);
        expect(run.summary.stoppedEarly).toBe(true);
        // Each attempt a worker ran is recorded exactly once, and nothing else is.
        expect(new Set(ran).size).toBe(ran.length);
        expect([...run.checkpoint].sort()).toEqual([...ran].sort());
        expect([...run.attemptIds].sort()).toEqual([...ran].sort());
        expect(run.summary.runBudget).toEqual({
          limits: { maxTokens: cap },
          spentUsd: expect.any(Number) as number,
          // The workers' requests hold the cap in Redis: once two requests were billed, every later one was refused, whichever attempt sent it.
          spentTokens: PER_ATTEMPT_TOKENS,
          reached: 'tokens',
        });
        expect(coordinator.output()).toContain(
          `stopped early (run token cap reached: ${PER_ATTEMPT_TOKENS} of --max-tokens-total ${cap}): planned ${planned}, executed ${ran.length}`,
        );
        // The rest was withdrawn, not left for the workers: no job of the run is left in Redis, and no worker starts one.
        const jobs = spawnSync('redis-cli', ['-p', String(redis.port), '--scan', '--pattern', `crucible:run.${run.runId}:js-slugify.*`], {
          encoding: 'utf8',
        }).stdout;
        expect(jobs.trim()).toBe('');
        expect(workers.flatMap(startedIds)).toHaveLength(ran.length);

        // The same run with a higher cap runs only the rest, on the workers.
        const resumed = startCli(['run', ...args, '--max-tokens-total', '1000000', '--resume', run.runId, '--queue', redis.url, '--out', out], KEY);
        expect(await resumed.exited, resumed.output()).toBe(1);
        const all = runOf(out);
        expect(all.summary.executed).toBe(planned);
        // The attempts kept from the first part count what they were billed there; the rest ran in full.
        expect(all.summary.runBudget).toMatchObject({ spentTokens: (planned - ran.length + 1) * PER_ATTEMPT_TOKENS });
        expect(all.summary.runBudget?.reached).toBeUndefined();
        expect(new Set(all.checkpoint).size).toBe(planned);
        expect(all.checkpoint).toHaveLength(planned);
        const ranInAll = workers.flatMap(startedIds);
        expect(new Set(ranInAll).size).toBe(planned);
        expect(ranInAll).toHaveLength(planned);
      } finally {
        for (const w of workers) await kill(w, 'SIGTERM');
      }
    },
    attemptBudget(8),
  );

  it(
    '--max-cost-total across two workers: the spend is the sum of the attempts the workers ran, and summary.json, the output and report.md say the cost cap stopped it',
    async () => {
      const root = tempDir();
      const workers = [startWorker(redis.url, join(root, 'w1'), [], KEY), startWorker(redis.url, join(root, 'w2'), [], KEY)];
      try {
        for (const w of workers) await w.waitFor(/taking jobs from/);
        const out = join(root, 'c');
        const planned = 6;
        // One attempt costs $0.00112 at gpt-4.1-mini's bundled price (2,000 input and 200 output tokens).
        const pricing = join(root, 'pricing.yaml');
        writeFileSync(pricing, SMALL_OUTPUT_PRICING);
        const args = ['run', 'examples/tasks.yaml', '--model', 'openai:gpt-4.1-mini', '--base-url', upstreamUrl, '--pricing', pricing, '--task', 'js-slugify'];
        const coordinator = startCli([...args, '--runs', String(planned), '--max-cost-total', '0.001', '--queue', redis.url, '--out', out], KEY);
        expect(await coordinator.exited, coordinator.output()).toBe(1);
        const run = runOf(out);
        const ran = workers.flatMap(startedIds);
        expect(run.summary.executed).toBeLessThan(planned);
        expect([...run.checkpoint].sort()).toEqual([...ran].sort());
        const costs = run.attemptIds.map(
          (id) =>
            (JSON.parse(readFileSync(join(run.runDir, 'attempts', id, 'attempt.json'), 'utf8')) as { agentResult: { usage: { costUsd: number } } }).agentResult
              .usage.costUsd,
        );
        const spent = Math.round(costs.reduce((a, b) => a + b, 0) * 1e9) / 1e9;
        expect(run.summary.runBudget).toEqual({
          limits: { maxCostUsd: 0.001 },
          spentUsd: spent,
          spentTokens: PER_ATTEMPT_TOKENS,
          reached: 'cost',
        });
        expect(coordinator.output()).toContain(`stopped early (run cost cap reached: $${spent} of --max-cost-total $0.001)`);
        expect(readFileSync(join(run.runDir, 'report.md'), 'utf8')).toContain(
          `> **Run cap:** run cost cap reached (spent $${spent} of --max-cost-total $0.001)`,
        );
      } finally {
        for (const w of workers) await kill(w, 'SIGTERM');
      }
    },
    attemptBudget(6),
  );
});
