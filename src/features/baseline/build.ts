import { dirname, relative, resolve, sep } from 'node:path';
import { baselineCellOf, type AgentInfo } from '../../core/types/index.js';
import { BASELINE_VERSION, type AgentIdentity, type BaselineEntry, type BaselineFile } from './format.js';
import type { RunAttemptOutcome, RunOutcomes } from './read-run.js';

/**
 * The identity of the agent behind an attempt: its spec, plus the model and, for external agents,
 * the installed version and profile hash, so a baseline says exactly what it measured.
 */
export function agentIdentity(spec: string, info: AgentInfo | undefined): AgentIdentity {
  const id: AgentIdentity = { spec };
  // A provider:model spec names its model; an external agent reports the model it ran with.
  const model = info?.model ?? (spec.includes(':') ? spec.slice(spec.indexOf(':') + 1) : undefined);
  if (model !== undefined && model !== '') id.model = model;
  if (info?.version !== undefined) id.agentVersion = info.version;
  if (info?.profileHash !== undefined) id.profileHash = info.profileHash;
  return id;
}

/** The task set's path as seen from the baseline file's directory, with `/` on every platform. */
export function taskSetRelativeTo(baselineFile: string, taskSetPath: string): string {
  return relative(dirname(resolve(baselineFile)), resolve(taskSetPath))
    .split(sep)
    .join('/');
}

/** A baseline of a run: per (task, task version, agent identity), each attempt's outcome in trial order. */
export function buildBaseline(run: RunOutcomes, baselineFile: string, now: Date = new Date()): BaselineFile {
  const groups = new Map<string, { taskId: string; taskVersion: string; agent: AgentIdentity; attempts: RunAttemptOutcome[] }>();
  for (const a of run.attempts) {
    const agent = agentIdentity(a.agent, a.agentInfo);
    const key = JSON.stringify([a.agent, a.taskId, a.taskVersion, agent]);
    const group = groups.get(key) ?? { taskId: a.taskId, taskVersion: a.taskVersion, agent, attempts: [] };
    group.attempts.push(a);
    groups.set(key, group);
  }
  const entries: BaselineEntry[] = [...groups.entries()]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([, g]) => ({
      taskId: g.taskId,
      taskVersion: g.taskVersion,
      agent: g.agent,
      attempts: g.attempts.sort((x, y) => x.trial - y.trial).map(baselineCellOf),
    }));
  return {
    version: BASELINE_VERSION,
    createdAt: now.toISOString(),
    sourceRun: run.runId,
    taskSet: taskSetRelativeTo(baselineFile, run.plan.taskSetPath),
    trials: run.plan.trials,
    entries,
  };
}
