import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { attemptDir, attemptFile, readAttemptRecord, readCheckpoint, readPlanFile, writeFileAtomic, type CheckpointEntry } from '../../domain/run-dir/index.js';
import { UNSCORED_CAUSES, type AttemptResult } from '../../core/types/index.js';
import { SWE_BENCH_FIELDS } from './predictions.js';

/** One prediction as SWE-bench's harness reads it. */
export interface SweBenchPrediction {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
}

/**
 * The run report SWE-bench's harness writes (swebench/harness/reporting.py, schema_version 2), with
 * Crucible's verdicts: resolved = PASS, unresolved = FAIL, error = an attempt that says nothing
 * about the model (task, harness or provider error), empty_patch = nothing changed.
 */
export interface SweBenchReport {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  error_ids: string[];
  schema_version: 2;
}

export interface SweBenchExport {
  agent: string;
  predictions: SweBenchPrediction[];
  report: SweBenchReport;
  /** Tasks whose diff.patch was cut at its cap: the exported patch is incomplete. */
  truncated: string[];
}

/**
 * Each agent's predictions (instance_id = task id, model_patch = the attempt's diff.patch) and
 * SWE-bench's report of them. SWE-bench has one prediction per instance: a run with several trials
 * exports its first (trial 0).
 */
export async function exportSweBench(runDir: string, runId: string): Promise<SweBenchExport[]> {
  const plan = await readPlanFile(runDir, runId);
  const { entries } = await readCheckpoint(runDir);
  const finished = new Map(entries.filter((e) => e.trial === 0).map((e) => [`${e.agent}\0${e.taskId}`, e] as const));
  const out: SweBenchExport[] = [];
  for (const agent of plan.agents) {
    // The tasks this agent was planned on (a graded run plans only the pairs that had a prediction).
    const planned = [...new Set(plan.attempts.filter((a) => a.agent === agent && a.trial === 0).map((a) => a.taskId))];
    const predictions: SweBenchPrediction[] = [];
    const ids = {
      completed: [] as string[],
      incomplete: [] as string[],
      empty: [] as string[],
      resolved: [] as string[],
      unresolved: [] as string[],
      error: [] as string[],
    };
    const truncated: string[] = [];
    for (const taskId of planned) {
      const entry = finished.get(`${agent}\0${taskId}`);
      if (entry === undefined) {
        ids.incomplete.push(taskId);
        continue;
      }
      const patch = await readPatch(runDir, entry);
      if ((await readAttempt(runDir, entry))?.diff?.patch?.truncated) truncated.push(taskId);
      predictions.push({ [SWE_BENCH_FIELDS.taskId]: taskId, [SWE_BENCH_FIELDS.model]: agent, [SWE_BENCH_FIELDS.patch]: patch } as SweBenchPrediction);
      if (entry.cause !== undefined && UNSCORED_CAUSES.has(entry.cause)) {
        ids.error.push(taskId);
        continue;
      }
      // As SWE-bench's report counts them: an empty patch is not a completed evaluation.
      if (patch.trim() === '') {
        ids.empty.push(taskId);
        continue;
      }
      ids.completed.push(taskId);
      if (entry.verdict === 'PASS') ids.resolved.push(taskId);
      else ids.unresolved.push(taskId);
    }
    const sorted = (xs: string[]): string[] => [...xs].sort();
    out.push({
      agent,
      predictions,
      truncated,
      report: {
        total_instances: plan.tasks.length,
        submitted_instances: predictions.length,
        completed_instances: ids.completed.length,
        resolved_instances: ids.resolved.length,
        unresolved_instances: ids.unresolved.length,
        empty_patch_instances: ids.empty.length,
        error_instances: ids.error.length,
        completed_ids: sorted(ids.completed),
        incomplete_ids: sorted(ids.incomplete),
        empty_patch_ids: sorted(ids.empty),
        submitted_ids: sorted(predictions.map((p) => p.instance_id)),
        resolved_ids: sorted(ids.resolved),
        unresolved_ids: sorted(ids.unresolved),
        error_ids: sorted(ids.error),
        schema_version: 2,
      },
    });
  }
  return out;
}

/** The names SWE-bench gives its files: the model with `/` as `__`, then the run id. */
export function sweBenchFileNames(agent: string, runId: string): { predictions: string; report: string } {
  const model = agent.replace(/\//g, '__');
  return { predictions: `${model}.predictions.jsonl`, report: `${model}.${runId}.json` };
}

/** Writes each agent's predictions JSONL and report JSON into `dir`; returns the files written. */
export async function writeSweBenchExport(dir: string, runId: string, exports: readonly SweBenchExport[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const e of exports) {
    const names = sweBenchFileNames(e.agent, runId);
    const predictions = join(dir, names.predictions);
    await writeFileAtomic(predictions, e.predictions.map((p) => `${JSON.stringify(p)}\n`).join(''));
    const report = join(dir, names.report);
    await writeFileAtomic(report, `${JSON.stringify(e.report, null, 4)}\n`);
    written.push(predictions, report);
  }
  return written;
}

async function readPatch(runDir: string, entry: CheckpointEntry): Promise<string> {
  try {
    return await readFile(attemptFile(attemptDir(runDir, entry.attemptId), 'diff'), 'utf8');
  } catch {
    // No change was captured (a task error, an agent that never ran): an empty prediction.
    return '';
  }
}

async function readAttempt(runDir: string, entry: CheckpointEntry): Promise<Pick<AttemptResult, 'diff'> | undefined> {
  return readAttemptRecord(runDir, entry.attemptId);
}
