import { resolve } from 'node:path';
import { loadTaskSet } from '../../domain/config/index.js';
import type { LoadedProfile } from '../../domain/agents/index.js';
import type { REPORTER_NAMES_IN_CONFIG } from '../../domain/config/index.js';
import type { Task } from '../../core/types/index.js';
import { isSuiteFile, loadSuite, type Suite } from './load.js';

export { isSuiteFile, isSuiteText, loadSuite, suiteTaskId, type Suite, type SuiteAgent, type SuiteTaskSet } from './load.js';
export { suiteJsonSchema, SUITE_SCHEMA_ID } from './json-schema.js';
export { resolveRunAgents, type RunAgents } from './agents.js';

/**
 * What `crucible run`, `gate` and `validate` take as their first argument: a task set or a suite,
 * loaded the same way for all of them.
 */
export interface RunInput {
  kind: 'taskset' | 'suite';
  /** Absolute path of the file given. */
  file: string;
  /** A suite's `suite:` name; undefined for a task set. */
  name?: string;
  /** Every task of a task set; a suite's tasks after its filters, ids prefixed `<set>/`. */
  tasks: Task[];
  /** Agents the file names (suites only); `--agent` replaces them. */
  agents?: string[];
  /** Per-agent `runs:` of a suite's agents. */
  agentRuns?: Record<string, number>;
  /** The suite's `runs:`. */
  runs?: number;
  /** Agent profiles the file (or a suite's task sets) define. */
  profiles?: LoadedProfile[];
  reporters?: Array<(typeof REPORTER_NAMES_IN_CONFIG)[number]>;
  /** Each task's position in its own task-set file (for errors naming `tasks[i]`). */
  taskIndex: Map<string, number>;
  /** Task-set name per task id; empty for a plain task set. */
  taskSets: Map<string, string>;
  /** The task set a task id belongs to (suites), undefined for a plain task set or an unknown id. */
  taskSetOf(taskId: string): string | undefined;
  /** Set name → task-set file (absolute), in suite order; empty for a plain task set. */
  taskSetFiles: Map<string, string>;
}

/** Loads `path` as a suite when its top level has a `suite:` key, as a task set otherwise. */
export function loadRunInput(path: string): RunInput {
  if (isSuiteFile(path)) return suiteInput(loadSuite(path));
  const taskSet = loadTaskSet(path);
  return {
    kind: 'taskset',
    file: taskSet.file,
    tasks: taskSet.tasks,
    ...(taskSet.agents ? { profiles: taskSet.agents } : {}),
    ...(taskSet.reporters ? { reporters: taskSet.reporters } : {}),
    taskIndex: new Map(taskSet.tasks.map((t, i) => [t.id, i])),
    taskSets: new Map(),
    taskSetOf: () => undefined,
    taskSetFiles: new Map(),
  };
}

function suiteInput(suite: Suite): RunInput {
  const taskSets = new Map(suite.taskSets.flatMap((s) => s.tasks.map((t) => [t.id, s.name] as const)));
  const agentRuns = Object.fromEntries((suite.agents ?? []).flatMap((a) => (a.runs === undefined ? [] : [[a.agent, a.runs] as const])));
  return {
    kind: 'suite',
    file: resolve(suite.file),
    name: suite.name,
    tasks: suite.taskSets.flatMap((s) => s.tasks),
    ...(suite.agents ? { agents: suite.agents.map((a) => a.agent) } : {}),
    ...(Object.keys(agentRuns).length > 0 ? { agentRuns } : {}),
    ...(suite.runs === undefined ? {} : { runs: suite.runs }),
    ...(suite.profiles.length > 0 ? { profiles: suite.profiles } : {}),
    ...(suite.reporters ? { reporters: suite.reporters } : {}),
    taskIndex: suite.taskIndex,
    taskSets,
    taskSetOf: (taskId) => taskSets.get(taskId),
    taskSetFiles: new Map(suite.taskSets.map((s) => [s.name, s.file])),
  };
}
