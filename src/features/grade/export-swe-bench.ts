import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SUBMITTED_PATCH_FILE } from '../../domain/agents/index.js';
import { attemptDir, attemptFile, readAttemptRecord, readCheckpoint, readPlanFile, writeFileAtomic, type CheckpointEntry } from '../../domain/run-dir/index.js';
import { readTrace, verifyChain } from '../../domain/trace/index.js';
import { UNSCORED_CAUSES, type AttemptResult } from '../../core/types/index.js';
import { SWE_BENCH_FIELDS } from './predictions.js';
import { readDatasetIds } from './swe-bench-dataset.js';
import { failureReasonOf, resolutionOf, testsStatusOf, type Resolution, type SweBenchTestsStatus } from './swe-bench-resolution.js';

/** One prediction as SWE-bench's harness reads it. */
export interface SweBenchPrediction {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
}

/**
 * The run report SWE-bench's harness writes (swebench/harness/reporting.py make_run_report, schema
 * version 2, with the failure classification added in 2026), every key in its order. Resolved is
 * SWE-bench's rule (swe-bench-resolution.ts); error = an attempt that says nothing about the model
 * (task, harness or provider error); empty_patch = nothing submitted.
 */
export interface SweBenchReport {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  infra_failure_instances: number;
  ambiguous_failure_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  infra_failure_ids: string[];
  ambiguous_failure_ids: string[];
  failure_reasons: Record<string, string>;
  error_ids: string[];
  schema_version: 2;
}

/** One instance's evaluation as SWE-bench writes it to logs/<run>/<model>/<id>/report.json. */
export interface SweBenchInstanceReport {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  infra_failure: boolean;
  infra_failure_reason?: string;
  tests_status?: Record<'FAIL_TO_PASS' | 'PASS_TO_PASS' | 'FAIL_TO_FAIL' | 'PASS_TO_FAIL', SweBenchTestsStatus>;
}

/** Where an exported model_patch came from. */
export type PatchSource = 'submitted' | 'diff' | 'none';

/** One instance of the export, with everything the submission folder writes for it. */
export interface SweBenchInstance {
  instanceId: string;
  attemptId: string;
  patch: string;
  patchSource: PatchSource;
  resolution: Resolution;
  report: SweBenchInstanceReport;
  attempt?: AttemptResult;
}

export interface SweBenchExport {
  agent: string;
  predictions: SweBenchPrediction[];
  report: SweBenchReport;
  instances: SweBenchInstance[];
  /** Ids resolved by each rule (the report uses `swe-bench`). */
  resolvedBy: { 'swe-bench': string[]; crucible: string[] };
  /** Tasks whose diff.patch was cut at its cap: the exported patch is incomplete. */
  truncated: string[];
  /** Patches that are not valid UTF-8: a predictions file holds text, so they cannot be exported byte for byte. */
  notUtf8: string[];
  /** Graded predictions whose submitted patch was not kept (runs before it was): Crucible's captured diff stands in. */
  regenerated: string[];
}

export interface SweBenchExportOptions {
  /** `--dataset`: the SWE-bench dataset file whose instances `total_instances` counts (default: the run's tasks). */
  dataset?: string;
}

export interface SweBenchExportResult {
  exports: SweBenchExport[];
  /** Where `total_instances` came from, said beside the counts. */
  totalFrom: { kind: 'dataset'; file: string } | { kind: 'run' };
}

/**
 * Each agent's predictions and SWE-bench's report of them. model_patch is the patch the model
 * submitted, byte for byte: for a grading run the prediction as it was read (kept in the attempt
 * directory by the patch agent), otherwise the attempt's captured diff.patch. SWE-bench has one
 * prediction per instance: a run with several trials exports its first (trial 0).
 */
export async function exportSweBench(runDir: string, runId: string, options: SweBenchExportOptions = {}): Promise<SweBenchExportResult> {
  const plan = await readPlanFile(runDir, runId);
  const { entries } = await readCheckpoint(runDir);
  const datasetIds = options.dataset === undefined ? undefined : readDatasetIds(options.dataset);
  const finished = new Map(entries.filter((e) => e.trial === 0).map((e) => [`${e.agent}\0${e.taskId}`, e] as const));
  const exports: SweBenchExport[] = [];
  for (const agent of plan.agents) {
    // The tasks this agent was planned on (a graded run plans only the pairs that had a prediction).
    const planned = [...new Set(plan.attempts.filter((a) => a.agent === agent && a.trial === 0).map((a) => a.taskId))];
    const total = datasetIds ?? plan.tasks.map((t) => t.id);
    const ids = { completed: [] as string[], empty: [] as string[], resolved: [] as string[], unresolved: [] as string[], error: [] as string[] };
    const out: Omit<SweBenchExport, 'report'> = {
      agent,
      predictions: [],
      instances: [],
      resolvedBy: { 'swe-bench': [], crucible: [] },
      truncated: [],
      notUtf8: [],
      regenerated: [],
    };
    for (const taskId of planned) {
      const entry = finished.get(`${agent}\0${taskId}`);
      if (entry === undefined) continue;
      const instance = await exportInstance(runDir, entry, plan.predictions !== undefined, out);
      out.instances.push(instance);
      out.predictions.push({
        [SWE_BENCH_FIELDS.taskId]: taskId,
        [SWE_BENCH_FIELDS.model]: agent,
        [SWE_BENCH_FIELDS.patch]: instance.patch,
      } as SweBenchPrediction);
      if (instance.resolution.crucible) out.resolvedBy.crucible.push(taskId);
      if (instance.resolution['swe-bench']) out.resolvedBy['swe-bench'].push(taskId);
      // As SWE-bench's report counts them: an empty patch is not evaluated; a patch that does not
      // apply, like a harness, task or provider error, leaves no evaluation (an error, not completed).
      if (instance.patch === '') ids.empty.push(taskId);
      else if (UNSCORED_CAUSES.has(entry.cause) || entry.cause === 'patch_not_applied') ids.error.push(taskId);
      else {
        ids.completed.push(taskId);
        (instance.resolution['swe-bench'] ? ids.resolved : ids.unresolved).push(taskId);
      }
    }
    const submitted = new Set(out.predictions.map((p) => p.instance_id));
    const reasons = new Map<string, { reason: string; tier: 'environment' | 'ambiguous' }>();
    for (const i of out.instances) {
      if (!ids.unresolved.includes(i.instanceId) && !ids.error.includes(i.instanceId)) continue;
      const why = i.attempt ? failureReasonOf(i.attempt) : undefined;
      if (why) reasons.set(i.instanceId, why);
    }
    const tier = (t: 'environment' | 'ambiguous'): string[] => sorted([...reasons].filter(([, r]) => r.tier === t).map(([id]) => id));
    const report: SweBenchReport = {
      total_instances: total.length,
      submitted_instances: submitted.size,
      completed_instances: ids.completed.length,
      resolved_instances: ids.resolved.length,
      unresolved_instances: ids.unresolved.length,
      infra_failure_instances: tier('environment').length,
      ambiguous_failure_instances: tier('ambiguous').length,
      empty_patch_instances: ids.empty.length,
      error_instances: ids.error.length,
      completed_ids: sorted(ids.completed),
      // SWE-bench's incomplete: instances of the dataset with no prediction (here: no finished attempt).
      incomplete_ids: sorted(total.filter((id) => !submitted.has(id))),
      empty_patch_ids: sorted(ids.empty),
      submitted_ids: sorted(submitted),
      resolved_ids: sorted(ids.resolved),
      unresolved_ids: sorted(ids.unresolved),
      infra_failure_ids: tier('environment'),
      ambiguous_failure_ids: tier('ambiguous'),
      failure_reasons: Object.fromEntries([...reasons].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, r]) => [id, r.reason])),
      error_ids: sorted(ids.error),
      schema_version: 2,
    };
    exports.push({ ...out, report });
  }
  return { exports, totalFrom: options.dataset === undefined ? { kind: 'run' } : { kind: 'dataset', file: options.dataset } };
}

async function exportInstance(runDir: string, entry: CheckpointEntry, graded: boolean, out: Omit<SweBenchExport, 'report'>): Promise<SweBenchInstance> {
  const dir = attemptDir(runDir, entry.attemptId);
  const attempt = await readAttemptRecord(runDir, entry.attemptId);
  const submitted = graded ? await readBytes(join(dir, SUBMITTED_PATCH_FILE)) : undefined;
  const bytes = submitted ?? (await readBytes(attemptFile(dir, 'diff')));
  if (graded && submitted === undefined && bytes !== undefined) out.regenerated.push(entry.taskId);
  if (submitted === undefined && attempt?.diff?.patch?.truncated) out.truncated.push(entry.taskId);
  const patch = bytes === undefined ? '' : decode(bytes, () => out.notUtf8.push(entry.taskId));
  const resolution = resolutionOf(attempt ?? { verdict: entry.verdict, tests: undefined });
  const report: SweBenchInstanceReport = {
    patch_is_None: bytes === undefined,
    patch_exists: bytes !== undefined,
    // Applied: the change reached a test run (a patch git refused, or no test run, never did).
    patch_successfully_applied: patch !== '' && entry.cause !== 'patch_not_applied' && attempt?.tests !== undefined,
    resolved: resolution['swe-bench'],
    infra_failure: false,
  };
  const why = attempt ? failureReasonOf(attempt) : undefined;
  if (why && !resolution['swe-bench']) {
    report.infra_failure = why.tier === 'environment';
    report.infra_failure_reason = why.reason;
  }
  if (attempt?.tests) {
    const listed = await taskTestIds(dir);
    if (listed) report.tests_status = testsStatusOf(attempt.tests, listed);
  }
  return {
    instanceId: entry.taskId,
    attemptId: entry.attemptId,
    patch,
    patchSource: bytes === undefined ? 'none' : submitted !== undefined ? 'submitted' : 'diff',
    resolution,
    report,
    ...(attempt ? { attempt } : {}),
  };
}

/** The task's fail-to-pass and pass-to-pass ids, as the attempt's verified trace recorded them (`all_others`: the ids its test run reported). */
async function taskTestIds(dir: string): Promise<{ failToPass: string[]; passToPass: string[] } | undefined> {
  let chain: ReturnType<typeof verifyChain>;
  try {
    chain = verifyChain(await readTrace(dir));
  } catch {
    return undefined;
  }
  if (!chain.ok) return undefined;
  const task = chain.events.find((e) => e.type === 'task');
  if (task?.type !== 'task') return undefined;
  const { failToPass, passToPass } = task.data.tests;
  if (passToPass !== 'all_others') return { failToPass: [...failToPass], passToPass: [...passToPass] };
  const f2p = new Set(failToPass);
  const reported = chain.events.flatMap((e) => (e.type === 'test_outcome' && e.data.run === 'tests' && !f2p.has(e.data.id) ? [e.data.id] : []));
  return { failToPass: [...failToPass], passToPass: [...new Set(reported)] };
}

async function readBytes(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch {
    return undefined;
  }
}

/** The patch as text, exactly; bytes that are not UTF-8 are reported (a JSON string cannot carry them) and replaced. */
function decode(bytes: Buffer, notUtf8: () => void): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    notUtf8();
    return bytes.toString('utf8');
  }
}

function sorted(xs: Iterable<string>): string[] {
  return [...xs].sort();
}

/** The names SWE-bench gives its files: the model with `/` as `__`, then the run id. */
export function sweBenchFileNames(agent: string, runId: string): { predictions: string; report: string; resolution: string } {
  const model = agent.replace(/\//g, '__');
  return { predictions: `${model}.predictions.jsonl`, report: `${model}.${runId}.json`, resolution: `${model}.${runId}.resolution.json` };
}

/**
 * Both rules side by side, in a file of Crucible's own beside SWE-bench's report (which keeps
 * exactly SWE-bench's keys): which ids each resolves, and where they differ.
 */
export function resolutionFile(e: SweBenchExport, totalFrom: SweBenchExportResult['totalFrom']): Record<string, unknown> {
  const crucible = sorted(e.resolvedBy.crucible);
  const sweBench = sorted(e.resolvedBy['swe-bench']);
  return {
    report_rule: 'swe-bench',
    rules: {
      'swe-bench': 'every FAIL_TO_PASS test passes and every PASS_TO_PASS test passes (or is skipped), whatever it did at the baseline',
      crucible:
        "Crucible's verdict: every fail-to-pass test passes and every pass-to-pass test that passed at the baseline still passes (tests broken at the baseline are excused)",
    },
    resolved_ids: { 'swe-bench': sweBench, crucible },
    resolved_only_by_crucible: crucible.filter((id) => !sweBench.includes(id)),
    total_instances_from: totalFrom.kind === 'dataset' ? `dataset ${totalFrom.file}` : "the run's tasks (no --dataset given)",
  };
}

/** Writes each agent's predictions JSONL, report JSON and both rules' resolution into `dir`; returns the files written. */
export async function writeSweBenchExport(dir: string, runId: string, result: SweBenchExportResult): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const e of result.exports) {
    const names = sweBenchFileNames(e.agent, runId);
    const predictions = join(dir, names.predictions);
    await writeFileAtomic(predictions, predictionsJsonl(e));
    const report = join(dir, names.report);
    await writeFileAtomic(report, `${JSON.stringify(e.report, null, 4)}\n`);
    const resolution = join(dir, names.resolution);
    await writeFileAtomic(resolution, `${JSON.stringify(resolutionFile(e, result.totalFrom), null, 2)}\n`);
    written.push(predictions, report, resolution);
  }
  return written;
}

export function predictionsJsonl(e: SweBenchExport): string {
  return e.predictions.map((p) => `${JSON.stringify(p)}\n`).join('');
}
