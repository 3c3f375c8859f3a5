import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { loadTaskSet, MAX_TASKSET_BYTES } from '../../domain/config/index.js';
import { issueToError, formatFieldPath, YamlSource, type FieldPath } from '../../core/input/index.js';
import { ConfigError, InputError, OptionError } from '../../core/errors.js';
import type { LoadedProfile } from '../../domain/agents/index.js';
import { selectTasks } from '../../domain/tasks/index.js';
import type { Task } from '../../core/types/index.js';
import { suiteSchema, type SuiteParsed } from './schema.js';

/** One task set of a suite: its tasks after the suite's filters, with ids prefixed `<name>/`. */
export interface SuiteTaskSet {
  name: string;
  /** Absolute path of the task-set file. */
  file: string;
  tasks: Task[];
}

export interface SuiteAgent {
  agent: string;
  runs?: number;
}

export interface Suite {
  /** Absolute path of the suite file. */
  file: string;
  name: string;
  taskSets: SuiteTaskSet[];
  agents?: SuiteAgent[];
  runs?: number;
  reporters?: SuiteParsed['reporters'];
  /** The `agents:` profiles of every task set, in suite order. */
  profiles: LoadedProfile[];
  /** Each (prefixed) task id's position in its own task-set file, so task errors name `tasks[i]` there. */
  taskIndex: Map<string, number>;
}

/** `<set>/<task>`: the id a suite gives a task, unique across the suite because set names are. */
export function suiteTaskId(setName: string, taskId: string): string {
  return `${setName}/${taskId}`;
}

/** A file is a suite when its top level is a mapping with a `suite:` key (task sets never have one). */
export function isSuiteText(text: string): boolean {
  return /^suite\s*:/m.test(text);
}

/** True when `path` is a suite file (cheap: reads the text, does not validate it). */
export function isSuiteFile(path: string): boolean {
  const file = resolve(path);
  if (!existsSync(file) || statSync(file).isDirectory() || statSync(file).size > MAX_TASKSET_BYTES) return false;
  return isSuiteText(readFileSync(file, 'utf8'));
}

/**
 * Loads a suite and every task set it lists. Problems in the suite are ConfigErrors naming the
 * suite file, line and field; problems inside a task set name that task set's file.
 */
export function loadSuite(path: string): Suite {
  const file = resolve(path);
  if (!existsSync(file)) throw new InputError(`${path}: no such suite file (fix: check the path)`);
  const size = statSync(file).size;
  if (size > MAX_TASKSET_BYTES)
    throw new InputError(`${path}: over the ${MAX_TASKSET_BYTES / 1024 / 1024} MB limit for a suite file (fix: point at the right file)`);
  const source = YamlSource.parse(path, readFileSync(file, 'utf8'));
  const raw = source.toJS();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError({ file: path }, 'expected a mapping with `suite:` and `task_sets:`', 'see docs/suites.md');
  }
  const parsed = suiteSchema.safeParse(raw);
  if (!parsed.success) throw issueToError(source, suiteSchema, parsed.error.issues, []);
  const data = parsed.data;
  const fail = (at: FieldPath, problem: string, fix: string): never => {
    throw new ConfigError({ file: path, ...source.position(at), field: formatFieldPath(at) }, problem, fix);
  };

  const taskSets: SuiteTaskSet[] = [];
  const profiles: LoadedProfile[] = [];
  const taskIndex = new Map<string, number>();
  const names = new Map<string, number>();
  data.task_sets.forEach((entry, i) => {
    const at: FieldPath = ['task_sets', i];
    const setFile = resolve(dirname(file), entry.path);
    if (!existsSync(setFile)) fail([...at, 'path'], `task-set file not found: ${entry.path}`, `paths are relative to ${path}`);
    if (statSync(setFile).isDirectory())
      fail([...at, 'path'], `${entry.path} is a directory`, `point it at the task-set YAML file, e.g. ${entry.path}/tasks.yaml`);
    const name = entry.name ?? basename(setFile, extname(setFile));
    const previous = names.get(name);
    if (previous !== undefined) {
      fail(
        [...at, entry.name === undefined ? 'path' : 'name'],
        `task set name "${name}" is also task_sets[${previous}]'s (${data.task_sets[previous]?.path}); task ids would collide`,
        `give one of them a distinct \`name:\``,
      );
    }
    names.set(name, i);
    const taskSet = loadTaskSet(setFile);
    const selection = { taskIds: entry.tasks, tags: entry.tags, categories: entry.categories, difficulties: entry.difficulties };
    let selected: Task[];
    try {
      selected = selectTasks(taskSet.tasks, selection, entry.path);
    } catch (error) {
      if (!(error instanceof OptionError)) throw error;
      const field = error.options[0]?.field;
      const key = field === 'taskIds' ? 'tasks' : field;
      const rewritten = error.renamed((f) => (f === 'taskIds' ? 'tasks' : f));
      throw new ConfigError({ file: path, ...source.position(key ? [...at, key] : at), field: formatFieldPath(key ? [...at, key] : at) }, rewritten.message);
    }
    const positions = new Map(taskSet.tasks.map((t, index) => [t.id, index]));
    const tasks = selected.map((t) => {
      const id = suiteTaskId(name, t.id);
      taskIndex.set(id, positions.get(t.id) ?? 0);
      return { ...t, id };
    });
    taskSets.push({ name, file: setFile, tasks });
    profiles.push(...(taskSet.agents ?? []));
  });

  const agents = data.agents?.map((a): SuiteAgent =>
    typeof a === 'string' ? { agent: a } : { agent: a.agent, ...(a.runs === undefined ? {} : { runs: a.runs }) },
  );
  if (agents) {
    const seen = new Map<string, number>();
    agents.forEach((a, i) => {
      const first = seen.get(a.agent);
      if (first !== undefined) fail(['agents', i], `agent ${a.agent} is listed twice (also agents[${first}])`, 'list each agent once; use `runs:` for repeats');
      seen.set(a.agent, i);
    });
  }
  return {
    file,
    name: data.suite,
    taskSets,
    ...(agents ? { agents } : {}),
    ...(data.runs === undefined ? {} : { runs: data.runs }),
    ...(data.reporters === undefined ? {} : { reporters: data.reporters }),
    profiles,
    taskIndex,
  };
}
