import { describe, expect, it } from 'vitest';
import { referenceAgentNames, resolveAgent } from '../../src/domain/agents/index.js';
import { InputError } from '../../src/core/errors.js';
import { ATTACKS, findAttack, resolveRunAgent } from '../../src/domain/redteam/index.js';
import { CLAUDE_PROFILE } from './external/fixtures.js';

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('resolved');
}

describe('the red team apart from the agent registry', () => {
  it('lists only the reference agents, none of the attacks', () => {
    const names = referenceAgentNames();
    expect(names).toContain('oracle');
    expect(names).toContain('tamper');
    const attacksOnly = ATTACKS.map((a) => a.name).filter((n) => !names.includes(n));
    expect(attacksOnly.length).toBeGreaterThan(10);
    expect(messageOf(() => resolveAgent('orcale'))).not.toMatch(new RegExp(`\\b(${attacksOnly.join('|')})\\b`));
  });

  it('a run still finds an attack by its name, and nothing else changes', () => {
    const attack = ATTACKS.find((a) => !referenceAgentNames().includes(a.name)) as (typeof ATTACKS)[number];
    expect(resolveRunAgent(attack.name)).toBe(findAttack(attack.name)?.agent);
    expect(messageOf(() => resolveAgent(attack.name))).toMatch(/unknown agent/);
    expect(resolveRunAgent('oracle').name).toBe('oracle');
    expect(resolveRunAgent('claude-code', new Map([[CLAUDE_PROFILE.name, CLAUDE_PROFILE]])).name).toBe('claude-code');
  });

  it('refuses a profile that takes an attack name', () => {
    const attack = ATTACKS.find((a) => !referenceAgentNames().includes(a.name)) as (typeof ATTACKS)[number];
    const profiles = new Map([[attack.name, { ...CLAUDE_PROFILE, name: attack.name }]]);
    expect(messageOf(() => resolveRunAgent(attack.name, profiles))).toBe(
      `--agent ${attack.name}: a profile has the name of the red-team attack "${attack.name}" (fix: rename the profile)`,
    );
  });
});
