import { posix } from 'node:path';
import type { z } from 'zod';
import { ConfigError, InputError } from '../../core/errors.js';
import { issueToError, YamlSource } from '../../core/input/index.js';
import { mergeDefaults } from '../../domain/config/index.js';
import { taskSchema, taskSetSchema, type DefaultsParsed } from '../../domain/config/index.js';
import { badPackPath } from './names.js';
import { fileReferences, networkFields, repoOf } from './references.js';

/** Which pack paths exist: files (and symlinks) by name, directories as prefixes of them. */
export interface PackTree {
  hasFile(path: string): boolean;
  hasDir(path: string): boolean;
}

/**
 * Checks the task set inside a pack as `crucible run` would parse it, plus what a pack adds: every
 * path it names is a pack-local relative path that is in the pack, every repo is a `path:` repo,
 * nothing is fetched from the network, and it declares no agent profiles (a pack must not be able
 * to replace an agent's command). Throws a ConfigError or InputError naming the field.
 */
export function checkPackTaskSet(where: string, tasksetPath: string, text: string, tree: PackTree): void {
  const source = YamlSource.parse(where, text);
  const raw = source.toJS() as unknown;
  const top = taskSetSchema.safeParse(raw);
  if (!top.success) throw issueToError(source, taskSetSchema, top.error.issues, []);
  if (top.data.agents !== undefined)
    throw new ConfigError({ file: where, field: 'agents' }, 'a pack may not declare agent profiles', 'remove agents: from the task set before packing');
  const base = posix.dirname(tasksetPath) === '.' ? '' : `${posix.dirname(tasksetPath)}/`;
  const defaults = (top.data.defaults ?? {}) as DefaultsParsed;
  top.data.tasks.forEach((rawTask, index) => {
    const merged = mergeDefaults(defaults, rawTask);
    const parsed = taskSchema.safeParse(merged);
    if (!parsed.success) throw issueToError(source, taskSchema as z.ZodType, parsed.error.issues, ['tasks', index], [['defaults']]);
    const task = merged as Record<string, unknown>;
    const at = (field: string): string => `${where}: tasks[${index}].${field}`;
    const network = networkFields(task)[0];
    if (network !== undefined)
      throw new InputError(`${at(network)}: fetched from the network when the task runs; a pack holds only local sources (fix: repack from a local copy)`);
    const repo = repoOf(task);
    if (repo?.kind !== 'path')
      throw new InputError(`${at('repo')}: a packed task's repo must be a path: under repos/ (fix: recreate the pack with crucible pack create)`);
    const check = (field: string, value: string, kind: 'file' | 'dir'): void => {
      const resolved = posix.normalize(`${base}${value}`);
      const bad = badPackPath(resolved);
      if (bad !== undefined || value.startsWith('/'))
        throw new InputError(`${at(field)}: ${JSON.stringify(value)} is not a path inside the pack (${bad ?? 'an absolute path'})`);
      if (kind === 'file' ? !tree.hasFile(resolved) : !tree.hasDir(resolved)) {
        throw new InputError(
          `${at(field)}: ${JSON.stringify(value)} is not a ${kind === 'file' ? 'file' : 'directory'} of the pack (fix: recreate the pack with crucible pack create)`,
        );
      }
    };
    check('repo.path', repo.path, 'dir');
    for (const ref of fileReferences(task)) check(ref.field, ref.value, ref.kind);
  });
}
