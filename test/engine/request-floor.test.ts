import { join } from 'node:path';
import { existsSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { createModelAgent } from '../../src/domain/agents/builtin/agent.js';
import type { Agent } from '../../src/domain/agents/index.js';
import { checkSmallestRequests } from '../../src/engine/request-floor.js';
import { SessionMeter } from '../../src/infra/gateway/meter.js';
import { loadPricing } from '../../src/infra/gateway/pricing.js';
import { PROVIDER_PROMPT_OVERHEAD, smallestReservation } from '../../src/infra/gateway/reservation.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { tinyTaskSet } from '../cli/fixtures.js';

const pricing = loadPricing();
const tempDir = useTempDirs();
/** The built-in agent on OpenAI sends no output limit: each request reserves gpt-5's 128,000 output tokens. */
const builtin = createModelAgent('openai:gpt-5');
const floor = smallestReservation('gpt-5', pricing);
/** An external program may set its own output limit: its floor is an empty request. */
const external: Agent = { name: 'some-cli:gpt-5', modelSpec: builtin.modelSpec, turnsAtGateway: true, run: builtin.run };

function refusal(
  agents: readonly Agent[],
  limits: { maxTokens?: number; maxCostUsd?: number },
  run?: { maxTokens?: number; maxCostUsd?: number },
): string | undefined {
  try {
    checkSmallestRequests(agents, pricing, limits, run);
    return undefined;
  } catch (error) {
    if (error instanceof InputError) return error.message;
    throw error;
  }
}

describe('a budget below the smallest request an agent can send is refused before the run', () => {
  it('is the worst case the gateway itself holds: a budget just below it refuses the smallest request, one at it admits it', () => {
    expect(floor.tokens).toBe(PROVIDER_PROMPT_OVERHEAD + 128_000);
    const admit = (budget: { maxTokens?: number; maxCostUsd?: number }) =>
      new SessionMeter({ model: 'gpt-5', budget }, pricing).admit({ api: 'responses', model: 'gpt-5', json: {}, bodyBytes: 0 }).allowed;
    expect(admit({ maxTokens: floor.tokens - 1 })).toBe(false);
    expect(admit({ maxTokens: floor.tokens })).toBe(true);
    expect(admit({ maxCostUsd: (floor.costUsd as number) * 0.999 })).toBe(false);
    expect(admit({ maxCostUsd: floor.costUsd as number })).toBe(true);
    expect(refusal([builtin], { maxTokens: floor.tokens })).toBeUndefined();
    expect(refusal([builtin], { maxCostUsd: floor.costUsd as number })).toBeUndefined();
  });

  it('names the option, the worst case and the fix, for each of the four budgets', () => {
    expect(refusal([builtin], { maxCostUsd: 0.5 })).toBe(
      "models.limits.maxCostUsd $0.5: the smallest request agent openai:gpt-5 can send may cost up to $1.28128 (128000 output tokens, the model's documented maximum, plus an empty request as prompt), so no request fits (fix: raise models.limits.maxCostUsd to at least $1.28128, or use a model with a smaller documented maximum output)",
    );
    expect(refusal([builtin], { maxTokens: 100_000 })).toMatch(/^models\.limits\.maxTokens 100000: .* may use up to 129024 tokens .*at least 129024/);
    expect(refusal([builtin], {}, { maxCostUsd: 1 })).toMatch(/^models\.runLimits\.maxCostUsd \$1: .*\$1\.28128/);
    expect(refusal([builtin], {}, { maxTokens: 5000 })).toMatch(/^models\.runLimits\.maxTokens 5000: .*129024 tokens/);
  });

  it('holds an agent that may set its own output limit to an empty request only', () => {
    expect(refusal([external], { maxTokens: 5000 }, { maxCostUsd: 0.5 })).toBeUndefined();
    expect(refusal([external], { maxTokens: 1000 })).toMatch(
      /^models\.limits\.maxTokens 1000: the smallest request agent some-cli:gpt-5 can send may use up to 1024 tokens \(an empty request: the provider's 1024-token prompt overhead\)/,
    );
    // Agents that call no model have no floor.
    expect(refusal([{ name: 'nop', run: builtin.run }], { maxTokens: 1 })).toBeUndefined();
  });

  it('crucible run stops with one line and exit 2 before any attempt starts', async () => {
    const dir = tempDir();
    tinyTaskSet(dir, 2);
    mkdirSync(join(dir, 'state'));
    const r = await runCli(['run', 'tasks.yaml', '--model', 'openai:gpt-5', '--max-cost-total', '0.5', '--sandbox', 'local', '--out', 'state'], {
      cwd: dir,
      env: { OPENAI_API_KEY: 'test-key-not-used' },
    });
    expect(r.status, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error .*--max-cost-total \$0\.5: the smallest request agent openai:gpt-5 can send may cost up to \$1\.28128 .*fix: raise --max-cost-total to at least \$1\.28128/,
    );
    expect(r.stdout).toBe('');
    expect(existsSync(join(dir, 'state', 'runs'))).toBe(false);
  });
});
