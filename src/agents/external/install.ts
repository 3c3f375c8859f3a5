import { createHash } from 'node:crypto';
import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError } from '../../errors.js';
import type { AgentProfile } from './profile.js';

/**
 * STAND-IN for the install helper's module (same names and signatures): it resolves only
 * `commandPath` profiles, so the runner can be built and tested before package installs exist.
 */
export interface ResolvedProgram {
  /** Absolute path of the program to run in place of `command[0]`. */
  argv0: string;
  /** Directories the sandbox must show read-only for the program to run. */
  readOnly: string[];
}

export async function resolveProgram(profile: AgentProfile, _options: { cacheDir: string; install: boolean }): Promise<ResolvedProgram> {
  if (profile.commandPath === undefined)
    throw new InputError(`agent ${profile.name}: package installs are not available in this build (fix: use command_path)`);
  try {
    await access(profile.commandPath, constants.X_OK);
  } catch {
    throw new InputError(
      `agent ${profile.name}: command_path ${profile.commandPath} is not an executable file (fix: correct command_path in ${profile.source})`,
    );
  }
  return { argv0: profile.commandPath, readOnly: [dirname(profile.commandPath)] };
}

/** A stable hash of what the profile says (its source file excluded), so reports can tell two versions apart. */
export function profileHash(profile: AgentProfile): string {
  const { source: _source, ...content } = profile;
  return createHash('sha256').update(stableJson(content)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
