import { describe, expect, it } from 'vitest';
import { createExternalAgent } from '../../../src/agents/external/agent.js';
import { PROVIDERS } from '../../../src/agents/index.js';
import { InputError } from '../../../src/errors.js';
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
});
