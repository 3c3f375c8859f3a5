import { InputError } from '../errors.js';
import type { Agent } from './agent.js';
import { createModelAgent } from './builtin/agent.js';
import { deleteTestsAgent, fakeJunitAgent, outsideWriteAgent, scopeCreepAgent, secretLeakAgent, skipTestsAgent, tamperAgent } from './reference/misbehaving.js';
import { nopAgent } from './reference/nop.js';
import { oracleAgent } from './reference/oracle.js';
import { ATTACKS } from './reference/attacks/catalogue.js';

export { ATTACKS, attacksFor, expectedFor, findAttack, type Attack, type AttackClass, type ExpectedOutcome } from './reference/attacks/catalogue.js';

/** `oracle` and `nop` prove tasks; the others cheat on purpose, one way each (docs/grading.md). */
const REFERENCE_AGENTS: Record<string, Agent> = {
  oracle: oracleAgent,
  nop: nopAgent,
  tamper: tamperAgent,
  'delete-tests': deleteTestsAgent,
  'skip-tests': skipTestsAgent,
  'fake-junit': fakeJunitAgent,
  'outside-write': outsideWriteAgent,
  'scope-creep': scopeCreepAgent,
  'secret-leak': secretLeakAgent,
  // The attack catalogue's agents (src/agents/reference/attacks/, docs/redteam.md), by name.
  ...Object.fromEntries(ATTACKS.map((a) => [a.name, a.agent])),
};

/** The reference agents that misbehave on purpose, with the cause each must end with. */
export const MISBEHAVING_AGENTS: Readonly<Record<string, 'tampered' | 'policy_violation'>> = {
  tamper: 'tampered',
  'delete-tests': 'tampered',
  'skip-tests': 'tampered',
  'fake-junit': 'tampered',
  'outside-write': 'policy_violation',
  'scope-creep': 'policy_violation',
  'secret-leak': 'policy_violation',
};

export function referenceAgentNames(): string[] {
  return Object.keys(REFERENCE_AGENTS);
}

/** Looks an agent spec up; an unknown one is the user's input error, named with the choices. */
export function resolveAgent(spec: string): Agent {
  // `provider:model` is the built-in agent on that model.
  if (spec.includes(':')) return createModelAgent(spec);
  const agent = REFERENCE_AGENTS[spec];
  if (!agent) {
    throw new InputError(`--agent ${spec}: unknown agent (fix: use one of ${referenceAgentNames().join(', ')})`);
  }
  return agent;
}
