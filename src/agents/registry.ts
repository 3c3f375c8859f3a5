import { InputError } from '../errors.js';
import type { Agent } from './agent.js';
import { nopAgent } from './reference/nop.js';
import { oracleAgent } from './reference/oracle.js';

const REFERENCE_AGENTS: Record<string, Agent> = {
  oracle: oracleAgent,
  nop: nopAgent,
};

export function referenceAgentNames(): string[] {
  return Object.keys(REFERENCE_AGENTS);
}

/** Looks an agent spec up; an unknown one is the user's input error, named with the choices. */
export function resolveAgent(spec: string): Agent {
  const agent = REFERENCE_AGENTS[spec];
  if (!agent) {
    throw new InputError(`--agent ${spec}: unknown agent (fix: use one of ${referenceAgentNames().join(', ')})`);
  }
  return agent;
}
