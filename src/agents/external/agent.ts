import type { Agent } from '../agent.js';
import type { AgentProfile } from './profile.js';

/**
 * The Agent for one profile on one model: `spec` is what the user wrote (`claude-code` or
 * `claude-code:claude-sonnet-4-5`), its name in reports and cassette keys; `model` overrides the
 * profile's default model.
 */
export function createExternalAgent(profile: AgentProfile, model: string | undefined, spec: string): Agent {
  return {
    name: spec,
    run: () => Promise.reject(new Error(`${profile.name} (${model ?? profile.model ?? 'no model'}): external agents are not wired yet`)),
  };
}
