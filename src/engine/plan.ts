import { createHash, randomBytes } from 'node:crypto';
import type { AttemptPlan, Task } from '../types/index.js';

/** Settings that change what an attempt means; a resumed run must match them exactly. */
export interface PlanSettings {
  sandbox: string;
}

/** Hash of everything that defines the attempts (tasks' content and the settings), not of when or where. */
export function configHash(tasks: Task[], settings: PlanSettings): string {
  const defining = tasks.map(({ sourceFile: _sourceFile, ...task }) => task);
  return sha256(JSON.stringify({ tasks: defining, settings })).slice(0, 16);
}

/** `20261130-091244-3fa2`: sortable by start time, unique enough for one machine. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * A readable, filesystem-safe id that is the same for the same task version, agent, trial and
 * config, so a resumed run finds the attempts it already has.
 */
export function attemptId(task: Pick<Task, 'id' | 'version'>, agent: string, trial: number, hash: string): string {
  const digest = sha256(`${task.id}\0${task.version}\0${agent}\0${trial}\0${hash}`).slice(0, 10);
  return `${slug(task.id)}.${slug(agent)}.${trial}.${digest}`;
}

/** Tasks × agents × trials, in a fixed order: task, then agent, then trial. */
export function expandPlan(runId: string, tasks: Task[], agents: string[], trials: number, hash: string): AttemptPlan[] {
  const plan: AttemptPlan[] = [];
  for (const task of tasks) {
    for (const agent of agents) {
      for (let trial = 0; trial < trials; trial++) {
        plan.push({ attemptId: attemptId(task, agent, trial, hash), runId, taskId: task.id, taskVersion: task.version, agent, trial, index: plan.length });
      }
    }
  }
  return plan;
}

function slug(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'x';
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
