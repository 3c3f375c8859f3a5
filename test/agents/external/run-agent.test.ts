import { describe, expect, it } from 'vitest';
import { createExternalAgent } from '../../../src/domain/agents/external/agent.js';
import { PROVIDERS } from '../../../src/domain/agents/index.js';
import { checkModelSpecs } from '../../../src/engine/gateway-lifecycle.js';
import { flagOf } from '../../../src/cli/option-flags.js';
import { OptionError } from '../../../src/core/errors.js';
import { InputError } from '../../../src/core/errors.js';
import { CLAUDE_PROFILE } from './fixtures.js';

const profile = CLAUDE_PROFILE;

describe('createExternalAgent', () => {
  it("is named by the spec and metered on its protocol's provider, with the given model or the profile's", () => {
    const agent = createExternalAgent(profile, undefined, 'claude-code');
    expect(agent.name).toBe('claude-code');
    expect(agent.modelSpec).toEqual({ spec: 'claude-code', provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
    expect(agent.turnsAtGateway).toBe(true);
    expect(createExternalAgent(profile, 'claude-haiku-4-5', 'claude-code:claude-haiku-4-5').modelSpec?.modelId).toBe('claude-haiku-4-5');
    for (const kind of ['openai-chat', 'openai-responses'] as const) {
      expect(createExternalAgent({ ...profile, protocol: { ...profile.protocol, kind } }, undefined, 'x').modelSpec?.provider).toBe('openai');
    }
  });

  it('refuses a profile with no model and none given, in one line naming the fix', () => {
    const make = () => createExternalAgent({ ...profile, model: undefined }, undefined, 'claude-code');
    expect(make).toThrow(InputError);
    expect(make).toThrow('--agent claude-code: profile claude-code names no model (fix: --agent claude-code:<model>, or set model: in builtin)');
  });

  it('meters a gemini profile on the gemini provider once the gateway has it, and says so otherwise', () => {
    const gemini = { ...profile, protocol: { ...profile.protocol, kind: 'gemini' as const } };
    if ('gemini' in PROVIDERS) expect(createExternalAgent(gemini, undefined, 'g').modelSpec?.provider).toBe('gemini');
    else expect(() => createExternalAgent(gemini, undefined, 'g')).toThrow(/protocol gemini is not metered/);
  });

  it('will not run before the run prepared it', async () => {
    const agent = createExternalAgent(profile, undefined, 'claude-code');
    await expect(agent.run({} as never)).rejects.toThrow(/run before prepare/);
  });

  it('refuses a cost limit on an unpriced model naming the model, the agent and the fix', () => {
    const spec = createExternalAgent(profile, 'claude-unpriced-9', 'claude-code:claude-unpriced-9').modelSpec;
    if (!spec) throw new Error('an external agent has a model spec');
    const check = (limits: { maxCostUsd?: number }, runLimits: { maxCostUsd?: number }) => {
      try {
        checkModelSpecs([spec], { env: { ANTHROPIC_API_KEY: 'k' }, limits, runLimits });
      } catch (error) {
        if (error instanceof OptionError) return error.renamed((field) => flagOf(field)).message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(check({ maxCostUsd: 1 }, {})).toBe(
      '--max-cost: model claude-unpriced-9 (agent claude-code:claude-unpriced-9) has no price in pricing.yaml, so a cost limit cannot hold ' +
        '(fix: price it in a file passed as --pricing (anthropic: { claude-unpriced-9: { input: <usd per M>, output: <usd per M> } }), or drop --max-cost)',
    );
    expect(check({}, { maxCostUsd: 5 })).toMatch(
      /^--max-cost-total: model claude-unpriced-9 \(agent claude-code:claude-unpriced-9\).* or drop --max-cost-total\)$/,
    );
  });
});
