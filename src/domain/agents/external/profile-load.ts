import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { issueToError, formatFieldPath, YamlSource, type FieldPath } from '../../../core/input/index.js';
import { ConfigError, InputError, type ConfigErrorLocation } from '../../../core/errors.js';
import { PROVIDERS } from '../models/providers.js';
import type { AgentProfile } from './profile.js';
import { nearestId } from '../../../core/format/index.js';
import { profileProblems, profileSchema, toProfile, type ProfileRules } from './profile-schema.js';

/**
 * Reads agent profiles from their three sources — the built-in `profiles/*.yaml`, a task set's
 * `agents:` section, an `--agents FILE` — and merges them by name. Every problem is a ConfigError
 * naming file:line, the field (`agents[0].command[2]`) and the fix, raised before any attempt runs.
 */

/** A profile and where it was written, so a later check (a name clash) can point at it. */
export interface LoadedProfile {
  profile: AgentProfile;
  where: ConfigErrorLocation;
}

/** Upstream names that are not providers of the built-in agent but are still not agent names. */
const OTHER_RESERVED = ['gemini'];

/** Provider names, plus `extra` (the reference agents, which the registry knows). */
export function profileRules(extra: readonly string[] = []): ProfileRules {
  return {
    reserved: new Set([...Object.keys(PROVIDERS), ...OTHER_RESERVED, ...extra]),
    keyVariables: new Set(Object.values(PROVIDERS).flatMap((p) => p.keyEnv)),
  };
}

/**
 * Validates a list of profiles found at `at` in `source` (a task set's `agents:` or an agents
 * file's), each relative to `dir`. `rules` defaults to the provider names only.
 */
export function parseProfiles(source: YamlSource, raw: unknown, at: FieldPath, dir: string, rules: ProfileRules = profileRules()): LoadedProfile[] {
  if (!Array.isArray(raw)) {
    throw new ConfigError(
      { file: source.file, ...source.position(at), field: formatFieldPath(at) },
      'expected a list of agent profiles',
      'write agents: followed by items starting with "- name:"',
    );
  }
  const seen = new Map<string, number>();
  return raw.map((item, index) => {
    const loaded = parseOne(source, item, [...at, index], dir, rules);
    const previous = seen.get(loaded.profile.name);
    if (previous !== undefined) {
      throw new ConfigError(
        { ...loaded.where, field: formatFieldPath([...at, index, 'name']) },
        `duplicate agent name "${loaded.profile.name}" (also ${formatFieldPath([...at, previous])})`,
        'give each profile a unique name',
      );
    }
    seen.set(loaded.profile.name, index);
    return loaded;
  });
}

function parseOne(source: YamlSource, raw: unknown, at: FieldPath, dir: string, rules: ProfileRules): LoadedProfile {
  const parsed = profileSchema.safeParse(raw);
  if (!parsed.success) throw issueToError(source, profileSchema as z.ZodType, parsed.error.issues, at);
  const problem = profileProblems(parsed.data, rules)[0];
  if (problem) {
    const full = [...at, ...problem.path];
    throw new ConfigError({ file: source.file, ...source.position(full), field: formatFieldPath(full) }, problem.problem, problem.fix);
  }
  const where = { file: source.file, ...source.position(at), field: formatFieldPath(at) };
  return { profile: toProfile(parsed.data, source.file, dir), where };
}

/** Profile files are hand-written; a cap keeps a wrong path (a log, a dump) from being parsed whole. */
const MAX_PROFILE_BYTES = 1024 * 1024;

function readSource(path: string, what: string): YamlSource {
  const file = resolve(path);
  if (!existsSync(file)) throw new InputError(`${path}: no such ${what} (fix: check the path)`);
  if (statSync(file).isDirectory()) throw new InputError(`${path}: is a directory, expected a ${what} (fix: name the YAML file)`);
  const bytes = readFileSync(file);
  if (bytes.length > MAX_PROFILE_BYTES)
    throw new InputError(`${path}: over ${MAX_PROFILE_BYTES / 1024} KB, too large for a ${what} (fix: point at the right file)`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(`${path}: not UTF-8 text (fix: save the ${what} as UTF-8 YAML)`);
  }
  return YamlSource.parse(path, text);
}

/** An `--agents FILE`: `agents:` and a list of profiles. */
export function loadAgentsFile(path: string, rules: ProfileRules = profileRules()): LoadedProfile[] {
  const source = readSource(path, 'agents file');
  const raw = source.toJS();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('agents' in raw)) {
    throw new ConfigError(
      { file: path, ...source.rootPosition() },
      'expected a mapping with an `agents:` list',
      'start the file with agents: (see docs/agents.md)',
    );
  }
  const unknownTop = Object.keys(raw).find((k) => k !== 'agents' && k !== '$schema');
  if (unknownTop !== undefined) {
    const guess = nearestId(unknownTop, ['agents']);
    throw new ConfigError(
      { file: path, ...source.position([], unknownTop), field: unknownTop },
      `unknown field "${unknownTop}"`,
      guess ? `did you mean "${guess}"?` : 'an agents file has only agents: (and $schema:)',
    );
  }
  return parseProfiles(source, (raw as { agents: unknown }).agents, ['agents'], dirname(resolve(path)), rules);
}

/**
 * One built-in profile per file: `profiles/<name>.yaml` holds the profile's fields at its top level,
 * and `name` must be the file's name so that `crucible agents list` and the files agree.
 */
export function loadBuiltinProfiles(dir: string = builtinProfilesDir(), rules: ProfileRules = profileRules()): LoadedProfile[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  return files.map((f) => {
    const path = join(dir, f);
    const source = readSource(path, 'agent profile');
    const raw = source.toJS();
    const body =
      raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? Object.fromEntries(Object.entries(raw).filter(([k]) => k !== '$schema')) : raw;
    const loaded = parseOne(source, body, [], dir, rules);
    const expected = basename(f, '.yaml');
    if (loaded.profile.name !== expected) {
      throw new ConfigError(
        { file: path, ...source.position(['name']), field: 'name' },
        `"${loaded.profile.name}" differs from the file name`,
        `name it ${expected}, or rename the file`,
      );
    }
    return { profile: { ...loaded.profile, source: 'builtin' }, where: loaded.where };
  });
}

/** `profiles/` sits at the package root, above both src/domain/agents/external and dist/domain/agents/external (and dist/bundle). */
export function builtinProfilesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'pricing.yaml'))) return join(dir, 'profiles');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), 'profiles');
}

/** The profiles a run can choose from, by name, and what each replaced. */
export interface ProfileCatalog {
  profiles: ReadonlyMap<string, AgentProfile>;
  /** Name → the sources (built-in, files) it replaced, earliest first. */
  overrides: ReadonlyMap<string, string[]>;
}

/**
 * Merges sources in order: a later source's profile replaces an earlier one of the same name
 * (built-ins first, then the task set's `agents:`, then `--agents FILE`). A name in `reserved`
 * (a reference agent) is an error pointing at the profile that took it.
 */
export function mergeProfiles(sources: ReadonlyArray<readonly LoadedProfile[]>, reserved: ReadonlySet<string> = new Set()): ProfileCatalog {
  const profiles = new Map<string, AgentProfile>();
  const overrides = new Map<string, string[]>();
  for (const source of sources) {
    for (const { profile, where } of source) {
      if (reserved.has(profile.name)) {
        throw new ConfigError(
          { ...where, field: where.field ? `${where.field}.name` : 'name' },
          `"${profile.name}" is already an agent or provider name`,
          `pick another name, e.g. my-${profile.name}`,
        );
      }
      const previous = profiles.get(profile.name);
      if (previous) overrides.set(profile.name, [...(overrides.get(profile.name) ?? []), previous.source]);
      profiles.set(profile.name, profile);
    }
  }
  return { profiles, overrides };
}
