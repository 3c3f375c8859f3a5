import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPricing } from '../../src/infra/gateway/pricing.js';
import { reservationFor } from '../../src/infra/gateway/reservation.js';
import { attemptBudget } from '../helpers/budget.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { useTempDirs } from '../helpers/tmp.js';
import { startCountingUpstream, PROMPT_TOKENS, type CountingUpstream } from '../gateway/counting-upstream.js';
import { kill, startCli, startWorker } from './processes.js';

const tempDir = useTempDirs();
const KEY = { OPENAI_API_KEY: 'sk-test-not-a-real-key' };
/** The one request the agent sends eight of at once. */
const BODY = { model: 'gpt-4.1', max_tokens: 1000, messages: [{ role: 'user', content: 'fix it' }] };
/** One request's worst case at gpt-4.1's bundled price: the most a run may end above its cap. */
const WORST = reservationFor('chat', BODY, JSON.stringify(BODY).length, 'gpt-4.1', loadPricing()).costUsd as number;
/** What the upstream bills each request it answers: 1,200 tokens in, max_tokens out. */
const BILLED = (PROMPT_TOKENS * 2 + BODY.max_tokens * 8) / 1_000_000;
const CAP = 0.05;

const AGENT = `#!/usr/bin/env node
if (process.argv[2] === '--version') { console.log('burst 1.0.0'); process.exit(0); }
const body = ${JSON.stringify(JSON.stringify(BODY))};
const send = () => fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.OPENAI_API_KEY },
  body,
}).then((r) => r.status);
console.log((await Promise.all(Array.from({ length: 8 }, send))).join(' '));
`;

let redis: TestRedis;
let upstream: CountingUpstream;

beforeAll(async () => {
  redis = await startRedis({ persistence: false });
  upstream = await startCountingUpstream();
});
afterAll(async () => {
  await redis.stop();
  await upstream.close();
});

/** An agents file whose one agent sends eight model requests at once, then stops. */
function burstAgent(dir: string): string {
  const script = join(dir, 'burst');
  writeFileSync(script, AGENT);
  chmodSync(script, 0o755);
  const file = join(dir, 'agents.yaml');
  writeFileSync(
    file,
    [
      'agents:',
      '  - name: burst',
      '    command_path: burst',
      '    command: [burst]',
      '    version_command: [burst, --version]',
      '    model: gpt-4.1',
      '    protocol: { kind: openai-chat, base_url_env: [OPENAI_BASE_URL], api_key_env: [OPENAI_API_KEY] }',
      '    output: text',
      '',
    ].join('\n'),
  );
  return file;
}

/** What the recorded attempts of the run in `out` were billed, by the gateways' metering. */
function recordedCost(out: string): number {
  const runDir = join(out, 'runs', readdirSync(join(out, 'runs')).find((n) => !n.startsWith('.')) as string);
  return readdirSync(join(runDir, 'attempts'))
    .filter((n) => !n.startsWith('.'))
    .reduce((sum, id) => {
      const attempt = JSON.parse(readFileSync(join(runDir, 'attempts', id, 'attempt.json'), 'utf8')) as { agentResult?: { usage?: { costUsd?: number } } };
      return sum + (attempt.agentResult?.usage?.costUsd ?? 0);
    }, 0);
}

describe('--max-cost-total with an agent that sends eight requests at once, at concurrency 4', () => {
  const args = (root: string): string[] => [
    'run',
    'examples/tasks.yaml',
    '--task',
    'js-slugify',
    '--agents',
    burstAgent(root),
    '--agent',
    'burst',
    '--base-url',
    `${upstream.url}/v1`,
    '--runs',
    '8',
    '--max-cost-total',
    String(CAP),
  ];

  it(
    'over the queue on two workers of two slots: the provider bills at most one request’s worst case above the cap',
    async () => {
      const root = tempDir();
      const workers = [
        startWorker(redis.url, join(root, 'w1'), ['--concurrency', '2'], KEY),
        startWorker(redis.url, join(root, 'w2'), ['--concurrency', '2'], KEY),
      ];
      try {
        for (const w of workers) await w.waitFor(/taking jobs from/);
        const before = upstream.received.length;
        const out = join(root, 'c');
        const coordinator = startCli([...args(root), '--concurrency', '4', '--queue', redis.url, '--out', out], KEY);
        expect(await coordinator.exited, coordinator.output()).toBe(1);
        // Without the pool in Redis, the four attempts running at once sent 32 requests ($0.33).
        const billed = (upstream.received.length - before) * BILLED;
        expect(billed).toBeGreaterThanOrEqual(CAP);
        expect(billed).toBeLessThanOrEqual(CAP + WORST);
        expect(recordedCost(out)).toBeCloseTo(billed, 9);
        expect(coordinator.output()).toContain('stopped early (run cost cap reached');
      } finally {
        for (const w of workers) await kill(w, 'SIGTERM');
      }
    },
    attemptBudget(8),
  );

  it(
    'locally: the same bound',
    async () => {
      const root = tempDir();
      const before = upstream.received.length;
      const out = join(root, 'c');
      const run = startCli([...args(root), '--concurrency', '4', '--out', out], KEY);
      expect(await run.exited, run.output()).toBe(1);
      const billed = (upstream.received.length - before) * BILLED;
      expect(billed).toBeGreaterThanOrEqual(CAP);
      expect(billed).toBeLessThanOrEqual(CAP + WORST);
      expect(recordedCost(out)).toBeCloseTo(billed, 9);
    },
    attemptBudget(8),
  );
});
