import { InputError } from '../../../core/errors.js';
import { AGENT_PLATFORMS, type AgentPlatform, type AgentProfile } from './profile.js';

/** `claude-code`, `claude-code:<model>`, `claude-code@bedrock` or `claude-code@bedrock:<model>`, taken apart. */
export interface ProfileSpec {
  name: string;
  platform?: string;
  /** Undefined when the spec names none; '' when it ends in ":". */
  model?: string;
}

export function splitProfileSpec(spec: string): ProfileSpec {
  const colon = spec.indexOf(':');
  const head = colon < 0 ? spec : spec.slice(0, colon);
  const at = head.indexOf('@');
  return {
    name: at < 0 ? head : head.slice(0, at),
    ...(at >= 0 ? { platform: head.slice(at + 1) } : {}),
    ...(colon >= 0 ? { model: spec.slice(colon + 1) } : {}),
  };
}

/**
 * The profile as it runs on `platform`: the platform's base URL and key variables instead of the
 * protocol's, its variables and home files over the profile's, its default model. A platform the
 * profile does not declare is the user's error, naming the ones it does.
 */
export function onPlatform(profile: AgentProfile, platform: string, spec: string): AgentProfile & { platform: AgentPlatform } {
  const declared = Object.keys(profile.platforms ?? {});
  const switches = (AGENT_PLATFORMS as readonly string[]).includes(platform) ? profile.platforms?.[platform as AgentPlatform] : undefined;
  if (!switches) {
    const fix =
      declared.length > 0
        ? `use ${declared.map((p) => `${profile.name}@${p}`).join(' or ')}`
        : `run ${profile.name} without "@", or add platforms.${platform} to ${profile.source}`;
    throw new InputError(`--agent ${spec}: profile ${profile.name} has no platform "${platform}" (fix: ${fix})`);
  }
  const model = switches.model ?? profile.model;
  return {
    ...profile,
    env: [...profile.env, ...switches.env.filter((name) => !profile.env.includes(name))],
    setEnv: { ...profile.setEnv, ...switches.setEnv },
    homeFiles: { ...profile.homeFiles, ...switches.homeFiles },
    ...(model !== undefined ? { model } : {}),
    protocol: {
      kind: profile.protocol.kind,
      baseUrlEnv: switches.baseUrlEnv ?? profile.protocol.baseUrlEnv,
      apiKeyEnv: switches.apiKeyEnv ?? profile.protocol.apiKeyEnv,
    },
    platform: platform as AgentPlatform,
  };
}
