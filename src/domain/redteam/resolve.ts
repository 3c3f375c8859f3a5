import { isProfileSpec, resolveAgent, type Agent, type AgentProfile } from '../agents/index.js';
import { InputError } from '../../core/errors.js';
import { findAttack } from './catalogue.js';

/**
 * The agent a run's `--agent` spec names: a red-team attack by its name (what `validate
 * --adversarial` plans, and what `run --agent NAME` has always accepted), else whatever the agent
 * registry resolves. A profile may not take an attack's name: which one ran would then depend on
 * where the name was looked up.
 */
export function resolveRunAgent(spec: string, profiles: ReadonlyMap<string, AgentProfile> = new Map()): Agent {
  const attack = findAttack(spec);
  if (attack === undefined) return resolveAgent(spec, profiles);
  if (isProfileSpec(spec, profiles)) {
    throw new InputError(`--agent ${spec}: a profile has the name of the red-team attack "${spec}" (fix: rename the profile)`);
  }
  return attack.agent;
}
