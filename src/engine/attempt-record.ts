/**
 * An attempt's record phase, and the one record builder: however the attempt ends (an early error,
 * the task's defect, a limit, an agent's crash, a verified change), its record is built here from
 * what the phases left (AttemptSoFar) and the verdict judge() gives its outcome. The engine never
 * writes a verdict itself.
 */
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Agent } from '../domain/agents/index.js';
import { judge, type Outcome } from '../domain/grading/index.js';
import { TRACE_FILE, writeTrace, type TraceEvidence } from '../domain/trace/index.js';
import { writeFileAtomic } from '../domain/run-dir/index.js';
import { attemptJsonText, MANIFEST_FILE, writeAttemptManifest, type ManifestSubject } from '../domain/manifest/index.js';
import { provenanceOf } from '../domain/environment/index.js';
import {
  ATTEMPT_SCHEMA_VERSION,
  type AgentResult,
  type AttemptPlan,
  type AttemptResult,
  type CheckResult,
  type DiffStats,
  type GuardSummary,
  type NotGraded,
  type Task,
  type TaskDefect,
  type TestRunEvidence,
} from '../core/types/index.js';
import { removeTree } from '../infra/workspace/index.js';
import type { Bench } from './bench.js';
import { AGENT_OVERLAY_DIR } from './agent-tree.js';
import { SetupCommandError } from './bench.js';
import type { AttemptEnv } from './attempt-env.js';
import { PhaseError } from './attempt-phase.js';
import { TaskDefectError, taskErrorMessage } from './task-error.js';
import { fileSystemFull } from './disk-full.js';

/** What a trace records of a verified attempt (src/domain/trace/): the checks' input, and what only verification could read. */
export type VerifiedEvidence = TraceEvidence;

/** What the phases that ran left for the record, filled in as each ends. */
export interface AttemptSoFar {
  bench?: Bench;
  agentResult?: AgentResult;
  /** With `--guard`: what the online guard saw and did. */
  guard?: GuardSummary;
  /** docker: the image id the agent's containers reported. */
  containerImageId?: string;
  verified?: { diff: DiffStats; notGraded: NotGraded; tests: TestRunEvidence; heldOut?: TestRunEvidence; checks: CheckResult[] };
}

export interface AttemptRecorder {
  /** Records the attempt as ended with `outcome`; throws when the record cannot be written (then `fail` it). */
  end(outcome: Outcome, evidence?: VerifiedEvidence): Promise<AttemptResult>;
  /** Records the attempt as ended by `error` (the task's defect, or the harness's fault in a phase); never throws. */
  fail(error: unknown): Promise<AttemptResult>;
}

export function attemptRecorder(
  plan: AttemptPlan,
  subject: { task: Task; agent: Agent },
  env: AttemptEnv,
  sofar: AttemptSoFar,
  timings: AttemptResult['timings'],
): AttemptRecorder {
  const startedAt = new Date();
  const attemptDir = join(env.runDir, 'attempts', plan.attemptId);
  const agentInfo = env.prepared?.get(subject.agent.name)?.info;
  const resolved = env.environments?.get(subject.task.id);
  const build = (outcome: Outcome, ending: Partial<AttemptResult> = {}): AttemptResult => {
    const environment = resolved ? provenanceOf(resolved, subject.task) : undefined;
    const runs = sofar.bench?.knownBaseline;
    return {
      ...plan,
      schemaVersion: ATTEMPT_SCHEMA_VERSION,
      sandbox: env.sandbox,
      ...(agentInfo ? { agentInfo } : {}),
      ...(environment
        ? { environment: { ...environment, ...(sofar.containerImageId !== undefined ? { containerImageId: sofar.containerImageId } : {}) } }
        : {}),
      checks: [],
      timings,
      startedAt: startedAt.toISOString(),
      ...(sofar.guard ? { guard: sofar.guard } : {}),
      ...(sofar.bench ? { workspace: sofar.bench.agentTree.provision } : {}),
      baselineCommit: sofar.bench?.baseline.commit,
      baselineTests: runs?.run.evidence,
      baselineHeldOut: runs?.heldOut?.evidence,
      agentResult: sofar.agentResult,
      ...sofar.verified,
      // No usable report after the agent nor at the baseline: the harness's (or the task's) problem, said where.
      ...(outcome.kind === 'never_ran' ? { harnessError: { phase: 'verify' as const, message: outcome.reason } } : {}),
      ...ending,
      ...judge(outcome),
      finishedAt: '',
    };
  };
  const write = (result: AttemptResult, outcome: Outcome, evidence?: VerifiedEvidence): Promise<AttemptResult> =>
    record(attemptDir, result, startedAt, env, subject, { outcome, ...(evidence ? { evidence } : {}) });
  return {
    end: (outcome, evidence) => write(build(outcome), outcome, evidence),
    fail: (error) => {
      const { outcome, ending } = failure(error, env.runDir);
      const result = build(outcome, ending);
      return write(result, outcome).catch(() => finish(result, startedAt));
    },
  };
}

/** How an error ends an attempt: the task's defect, or the harness's fault in the phase it happened in. */
function failure(error: unknown, runDir: string): { outcome: Outcome; ending: Partial<AttemptResult> } {
  const original = error instanceof PhaseError ? error.original : error;
  if (original instanceof TaskDefectError) {
    const defects: TaskDefect[] = [...original.defects];
    const ending = {
      taskError: { defects },
      // The baseline's run that showed the defect, output and all: what to look at to fix it.
      ...(original.baselineTests ? { baselineTests: original.baselineTests } : {}),
    };
    return { outcome: { kind: 'task_defect', message: taskErrorMessage(defects) }, ending };
  }
  const phase = error instanceof PhaseError ? error.phase : 'record';
  const message = error instanceof Error ? error.message : String(error);
  const detail = original instanceof SetupCommandError ? { detail: original.failure.excerpt } : {};
  // Looked at now, before record's cleanup frees space: statfs, not the message, says whether the disk was full.
  const harnessError = { phase, message, ...detail, ...(fileSystemFull(runDir) ? { stateDiskFull: true } : {}) };
  return { outcome: { kind: 'harness_fault', phase, message }, ending: { harnessError } };
}

function finish(result: AttemptResult, startedAt: Date): AttemptResult {
  const finishedAt = new Date();
  result.finishedAt = finishedAt.toISOString();
  result.timings.totalMs = finishedAt.getTime() - startedAt.getTime();
  return result;
}

/** What an attempt leaves besides its evidence; removed unless --keep-workspace. */
export const ATTEMPT_SCRATCH_DIRS = [
  'workspace',
  'workspace.index',
  'pristine',
  'agent-workspace',
  AGENT_OVERLAY_DIR,
  'baseline.git',
  'store.git',
  'home',
  'tmp',
  'test-home',
  'test-tmp',
  'results',
];

/**
 * Writes the attempt's trace, then its manifest (which commits to the trace's and attempt.json's
 * bytes), then attempt.json atomically (a crash leaves the old file or none, never half of one):
 * an attempt.json on disk has both, unless a full disk left room for the record alone.
 * Exported for bench/matrix.mjs, whose instant attempts are recorded the same way.
 */
export async function record(
  attemptDir: string,
  result: AttemptResult,
  startedAt: Date,
  env: Pick<AttemptEnv, 'keepWorkspace' | 'stateDir'>,
  subject: ManifestSubject,
  judged: { outcome?: Outcome; evidence?: VerifiedEvidence } = {},
): Promise<AttemptResult> {
  finish(result, startedAt);
  await mkdir(attemptDir, { recursive: true });
  if (!env.keepWorkspace) {
    // What the agent and the code under test left (any depth, any mode) must not make this record fail.
    await Promise.all(ATTEMPT_SCRATCH_DIRS.map((d) => removeTree(join(attemptDir, d))));
  }
  // trace.jsonl: the hash-chained evidence an offline replay re-grades (src/domain/trace/).
  await writeTrace(attemptDir, result, judged, { stateDir: env.stateDir, tasksetDir: dirname(subject.task.sourceFile) });
  const json = attemptJsonText(result);
  const file = join(attemptDir, 'attempt.json');
  try {
    await writeAttemptManifest({ attemptDir, result, attemptJson: json, ...subject, scratch: ATTEMPT_SCRATCH_DIRS });
    await writeFileAtomic(file, json);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    // On a full disk the record comes first: the trace and the manifest make room for it, and
    // `manifest verify` then names the attempt as one without a manifest, which is the truth.
    await Promise.all([TRACE_FILE, MANIFEST_FILE].map((name) => rm(join(attemptDir, name), { force: true })));
    await writeFileAtomic(file, json);
  }
  return result;
}
