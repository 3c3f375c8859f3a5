import { describe, expect, it } from 'vitest';
import { isProfileSpec, resolveAgent } from '../../../src/domain/agents/registry.js';
import { InputError } from '../../../src/core/errors.js';
import { CLAUDE_PROFILE } from './fixtures.js';

const claude = CLAUDE_PROFILE;
const profiles = new Map([[claude.name, claude]]);

function inputError(spec: string): string {
  try {
    resolveAgent(spec, profiles);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error(`${spec} resolved`);
}

describe('--agent NAME[:model]', () => {
  it('a profile name, alone or with a model, is that external agent named as written', () => {
    expect(resolveAgent('claude-code', profiles).name).toBe('claude-code');
    expect(resolveAgent('claude-code:claude-opus-4-1', profiles).name).toBe('claude-code:claude-opus-4-1');
    expect(isProfileSpec('claude-code:claude-opus-4-1', profiles)).toBe(true);
    expect(isProfileSpec('anthropic:claude-opus-4-1', profiles)).toBe(false);
  });

  it('provider:model stays the built-in agent and reference agents are unchanged', () => {
    expect(resolveAgent('anthropic:claude-sonnet-4-5', profiles).modelSpec).toEqual({
      spec: 'anthropic:claude-sonnet-4-5',
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
    });
    expect(resolveAgent('oracle', profiles).name).toBe('oracle');
    expect(resolveAgent('oracle').name).toBe('oracle');
  });

  it('an unknown agent names the profiles and reference agents, with a near match', () => {
    expect(inputError('claude-cod')).toMatch(
      /^--agent claude-cod: unknown agent \(fix: did you mean claude-code\? profiles: claude-code; reference agents: oracle, nop, /,
    );
    expect(inputError('claude:claude-opus-4-1')).toMatch(/did you mean claude-code:claude-opus-4-1\?/);
    expect(inputError('oracel')).toMatch(/did you mean oracle\?/);
    expect(inputError('zzzzzz')).toMatch(
      /\(fix: use one of the profiles: claude-code; reference agents: oracle, .*; or provider:model with provider one of openai, anthropic/,
    );
    expect(inputError('claude-code:')).toMatch(/no model after ":"/);
  });
});
