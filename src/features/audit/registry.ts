import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { referenceAgentNames } from '../../domain/agents/index.js';
import { MAX_TASKSET_BYTES } from '../../domain/config/index.js';
import { issueToError, formatFieldPath, YamlSource, type FieldPath } from '../../core/input/index.js';
import { ConfigError, InputError } from '../../core/errors.js';
import { nearestId } from '../../core/format/index.js';
import type { Task } from '../../core/types/index.js';
import { contractConflict, DEFAULT_CONTRACT, type AgentContract, type Contract } from './contract.js';
import { registrySchema, type AgentContractParsed } from './schema.js';

/** The registry file `crucible audit` looks for next to the task set when --registry is not given. */
export const REGISTRY_FILE = 'registry.yaml';

export interface Family {
  id: string;
  version: string;
  description?: string;
  /** The task set's tasks in this family, in task-set order. */
  taskIds: string[];
  /** Per reference agent; oracle and nop always present (the default contract fills them in). */
  contract: Contract;
}

export interface Registry {
  name: string;
  version: string;
  /** Absolute path of the registry file; undefined for the default registry. */
  file?: string;
  families: Family[];
  /** Tasks of the task set that no family selects: not audited. */
  unregistered: string[];
}

/** `registry.yaml` beside the task set, if there is one. */
export function findRegistry(tasksetPath: string): string | undefined {
  const candidate = join(dirname(resolve(tasksetPath)), REGISTRY_FILE);
  return existsSync(candidate) ? candidate : undefined;
}

/** Without a registry: one family `name` holding every task, under the default contract. */
export function defaultRegistry(name: string, tasks: readonly Task[]): Registry {
  const id =
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '') || 'tasks';
  return { name: id, version: '0.0.0', families: [{ id, version: '0.0.0', taskIds: tasks.map((t) => t.id), contract: DEFAULT_CONTRACT }], unregistered: [] };
}

/**
 * Reads a registry and resolves its families against the task set's tasks. Every problem is a
 * ConfigError naming the file, line, field and fix: unknown fields, a task id the task set does not
 * have, a tag no task carries, a task in two families, an agent that is not a reference agent, a
 * contract no attempt could meet.
 */
export function loadRegistry(path: string, tasks: readonly Task[]): Registry {
  const file = resolve(path);
  if (!existsSync(file) || statSync(file).isDirectory()) throw new InputError(`${path}: no such registry file (fix: check the path given to --registry)`);
  if (statSync(file).size > MAX_TASKSET_BYTES)
    throw new InputError(`${path}: over the ${MAX_TASKSET_BYTES / 1024 / 1024} MB limit for a registry file (fix: point at the right file)`);
  const source = YamlSource.parse(path, readFileSync(file, 'utf8'));
  const raw = source.toJS();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError({ file: path }, 'expected a mapping with `registry:`, `version:` and `families:`', 'see docs/audit.md');
  const parsed = registrySchema.safeParse(raw);
  if (!parsed.success) throw issueToError(source, registrySchema, parsed.error.issues, []);
  const fail = (at: FieldPath, problem: string, fix: string): never => {
    throw new ConfigError({ file: path, ...source.position(at), field: formatFieldPath(at) }, problem, fix);
  };

  const taskIds = tasks.map((t) => t.id);
  const owner = new Map<string, string>();
  const seenIds = new Set<string>();
  const references = referenceAgentNames();
  const families = parsed.data.families.map((f, i): Family => {
    const at: FieldPath = ['families', i];
    if (seenIds.has(f.id)) fail([...at, 'id'], `family id "${f.id}" is used twice`, 'give each family its own id');
    seenIds.add(f.id);
    if (f.tasks === undefined && f.tags === undefined) fail(at, 'selects no tasks', 'add tasks: [<task id>, …] or tags: [<tag>, …]');
    f.tasks?.forEach((id, j) => {
      if (!taskIds.includes(id)) {
        const near = nearestId(id, taskIds);
        fail([...at, 'tasks', j], `no task "${id}" in the task set`, near ? `did you mean "${near}"?` : `use one of: ${taskIds.join(', ')}`);
      }
    });
    f.tags?.forEach((tag, j) => {
      if (!tasks.some((t) => t.metadata.tags.includes(tag)))
        fail([...at, 'tags', j], `no task has the tag "${tag}"`, 'check the tag against metadata.tags in the task set');
    });
    const mine = tasks.filter((t) => f.tasks?.includes(t.id) === true || t.metadata.tags.some((tag) => f.tags?.includes(tag) === true)).map((t) => t.id);
    for (const id of mine) {
      const other = owner.get(id);
      if (other !== undefined) fail(at, `task "${id}" is already in family "${other}"`, 'put each task in one family (narrow tasks: or tags:)');
      owner.set(id, f.id);
    }
    const contract: Record<string, AgentContract> = { ...DEFAULT_CONTRACT };
    for (const [agent, spec] of Object.entries(f.contract ?? {})) {
      const field: FieldPath = [...at, 'contract', agent];
      if (!references.includes(agent)) {
        const near = nearestId(agent, references);
        fail(field, `"${agent}" is not a reference agent`, near ? `did you mean "${near}"?` : `use one of: ${references.join(', ')}`);
      }
      const c = toContract(spec);
      const conflict = contractConflict(c);
      if (conflict !== undefined) fail(field, conflict, 'see the verdicts and causes in docs/grading.md');
      contract[agent] = c;
    }
    return { id: f.id, version: f.version, ...(f.description === undefined ? {} : { description: f.description }), taskIds: mine, contract };
  });
  return {
    name: parsed.data.registry,
    version: parsed.data.version,
    file,
    families,
    unregistered: taskIds.filter((id) => !owner.has(id)),
  };
}

function toContract(spec: AgentContractParsed): AgentContract {
  return {
    verdict: spec.verdict,
    // PASS only ever comes with `passed`: saying so is the default.
    ...(spec.cause !== undefined ? { cause: spec.cause } : spec.verdict === 'PASS' ? { cause: 'passed' as const } : {}),
    mustPass: spec.must_pass ?? [],
    mustFail: spec.must_fail ?? [],
  };
}
