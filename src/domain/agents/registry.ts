import { InputError } from '../../core/errors.js';
import type { Agent } from './agent.js';
import { createModelAgent } from './builtin/agent.js';
import {
  deleteTestsAgent,
  fakeJunitAgent,
  forbiddenWriteAgent,
  outsideWriteAgent,
  scopeCreepAgent,
  secretLeakAgent,
  skipTestsAgent,
  tamperAgent,
} from './reference/misbehaving.js';
import { nopAgent } from './reference/nop.js';
import { oracleAgent } from './reference/oracle.js';
import { createExternalAgent } from './external/agent.js';
import { onPlatform, splitProfileSpec } from './external/platform.js';
import type { AgentProfile } from './external/profile.js';
import { loadAgentsFile, loadBuiltinProfiles, mergeProfiles, profileRules, type LoadedProfile, type ProfileCatalog } from './external/profile-load.js';
import { isModelSpec, PROVIDERS } from './models/providers.js';
import { nearestId } from '../../core/format/index.js';

/**
 * `oracle` and `nop` prove tasks; the others cheat on purpose, one way each (docs/grading.md). The
 * red team's attack agents are not here: src/domain/redteam/ holds them, and `resolveRunAgent` there
 * finds them by name for a run.
 */
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
  // Writes a forbidden path, pauses, writes more: what `--guard enforce` stops mid-run (docs/guard.md).
  'forbidden-write': forbiddenWriteAgent,
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

/**
 * Looks an agent spec up: a reference agent (`oracle`), a profile (`claude-code`, or
 * `claude-code:claude-sonnet-4-5` for another model, `claude-code@bedrock[:model]` on a cloud
 * platform its profile declares), or the built-in agent on a provider's model
 * (`openai:gpt-4.1-mini`). An unknown one is the user's input error, named with the choices.
 */
export function resolveAgent(spec: string, profiles: ReadonlyMap<string, AgentProfile> = new Map()): Agent {
  const colon = spec.indexOf(':');
  const head = colon < 0 ? spec : spec.slice(0, colon);
  const parts = splitProfileSpec(spec);
  const profile = profiles.get(parts.name);
  if (profile) {
    if (parts.model === '')
      throw new InputError(`--agent ${spec}: no model after ":" (fix: --agent ${head} for its default model, or --agent ${head}:<model>)`);
    if (parts.platform === undefined) return createExternalAgent(profile, parts.model, spec);
    const onIt = onPlatform(profile, parts.platform, spec);
    return createExternalAgent(onIt, parts.model, spec, onIt.platform);
  }
  // `provider:model` is the built-in agent on that model.
  if (colon >= 0 && isModelSpec(spec)) return createModelAgent(spec);
  const agent = colon < 0 ? REFERENCE_AGENTS[spec] : undefined;
  if (agent) return agent;
  const names = [...profiles.keys(), ...referenceAgentNames()];
  // A typo, or the start of a longer name (`claude` for `claude-code`).
  const guess = nearestId(head, names) ?? (head.length >= 3 ? names.find((n) => n.startsWith(head)) : undefined);
  const choices = `profiles: ${[...profiles.keys()].join(', ') || 'none'}; reference agents: ${referenceAgentNames().join(', ')}; or provider:model with provider one of ${Object.keys(PROVIDERS).join(', ')}`;
  const fix = guess ? `did you mean ${guess}${colon < 0 ? '' : spec.slice(colon)}? ${choices}` : `use one of the ${choices}`;
  throw new InputError(`--agent ${spec}: unknown agent (fix: ${fix})`);
}

/** True when `spec` names a profile (`NAME` or `NAME:model`) rather than a reference or model agent. */
export function isProfileSpec(spec: string, profiles: ReadonlyMap<string, AgentProfile>): boolean {
  return profiles.has(splitProfileSpec(spec).name);
}

/** Options of loadAgentCatalog: the sources of profiles besides the built-in ones. */
export interface AgentCatalogSources {
  /** A task set's `agents:` section, already validated by its loader. */
  taskSet?: readonly LoadedProfile[];
  /** An `--agents FILE`. */
  agentsFile?: string;
  /** Where the built-in profiles are; default `profiles/` at the package root. */
  builtinDir?: string;
  /**
   * False when no agent of the run can name a built-in profile (onlyReferenceAgents): they are
   * not read then, which saves every such run parsing files it cannot use.
   */
  builtin?: boolean;
}

/** Whether every spec is a reference agent, which no profile may be named like (profileRules reserves them). */
export function onlyReferenceAgents(specs: readonly string[]): boolean {
  return specs.every((spec) => Object.hasOwn(REFERENCE_AGENTS, spec));
}

/**
 * The profiles a run can choose from: built-in ones, overridden by the task set's `agents:`,
 * overridden by `--agents FILE`. A profile named like a reference agent or a provider is an error
 * naming where it was written.
 */
export function loadAgentCatalog(sources: AgentCatalogSources = {}): ProfileCatalog {
  const rules = profileRules(referenceAgentNames());
  const builtin = sources.builtin === false ? [] : loadBuiltinProfiles(sources.builtinDir, rules);
  const file = sources.agentsFile === undefined ? [] : loadAgentsFile(sources.agentsFile, rules);
  return mergeProfiles([builtin, sources.taskSet ?? [], file], rules.reserved);
}
