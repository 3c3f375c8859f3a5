import { lstat, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandEvent } from '../evidence/index.js';
import type { VerifiedEvidence } from '../engine/attempt-verify.js';
import type { AttemptResult, DiffStats, TestCaseResult, TestRunEvidence } from '../types/index.js';
import { git } from '../workspace/index.js';
import { sha256 } from './canonical.js';
import { sealTrace } from './chain.js';
import { TRACE_FILE, type TestRunName, type TraceEnd, type TraceEvent } from './events.js';
import { redactArgv } from '../redact/index.js';
import { hostPathMapper, mapStrings, type HostDirs } from './host-paths.js';

/** Git blob ids of each changed path, before (`old`) and after (`new`); a side that does not exist has none. */
export type ChangeBlobs = Record<string, { old?: string; new?: string }>;

const NO_BLOB = /^0+$/;

/** Reads the blob ids of every path that differs between two trees of the harness's store (no rename detection: paths as they are). */
export async function changeBlobs(gitDir: string, from: string, to: string): Promise<ChangeBlobs> {
  const out = await git({ gitDir }, ['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]);
  const fields = out.split('\0');
  const blobs: ChangeBlobs = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = (fields[i] ?? '').split(' ');
    const path = fields[i + 1] ?? '';
    const [oldId, newId] = [meta[2] ?? '', meta[3] ?? ''];
    blobs[path] = { ...(NO_BLOB.test(oldId) ? {} : { old: oldId }), ...(NO_BLOB.test(newId) ? {} : { new: newId }) };
  }
  return blobs;
}

/** The placeholder that stands for each of the task's literal secrets in a trace. */
export const LITERAL_PLACEHOLDER = '<literal>';

/**
 * Writes `trace.jsonl` for a finished attempt: what the checks judged (when it got that far),
 * then the checks and the verdict recorded. Written under a temporary name and renamed, so the
 * file is whole or absent. Never throws: an attempt is recorded even when its trace cannot be.
 */
export async function writeTrace(
  attemptDir: string,
  result: AttemptResult,
  evidence?: VerifiedEvidence,
  hostDirs: Omit<HostDirs, 'attemptDir'> = {},
): Promise<boolean> {
  const file = join(attemptDir, TRACE_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    const commands = evidence ? evidence.checkInput.commands : await readCommandLog(join(attemptDir, 'commands.jsonl'));
    const events = mapStrings(traceEvents(result, commands, evidence), hostPathMapper({ attemptDir, ...hostDirs }));
    const text = sealTrace({ attemptId: result.attemptId, runId: result.runId }, events);
    await writeFile(temp, text, { flag: 'w', mode: 0o644 });
    await rename(temp, file);
    return true;
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
    return false;
  }
}

/** The events of one attempt, in trace order. */
export function traceEvents(result: AttemptResult, commands: readonly CommandEvent[], evidence?: VerifiedEvidence): TraceEvent[] {
  const events: TraceEvent[] = [];
  const input = evidence?.checkInput;
  events.push({
    type: 'attempt',
    data: { attemptId: result.attemptId, runId: result.runId, taskId: result.taskId, agent: result.agent, trial: result.trial, sandbox: result.sandbox },
  });
  if (input) {
    const { task, policy } = input;
    events.push({ type: 'task', data: { id: task.id, tests: task.tests, ...(task.heldOut ? { heldOut: task.heldOut } : {}) } });
    events.push({ type: 'policy', data: { ...policy, secrets: { ...policy.secrets, literals: policy.secrets.literals.map(() => LITERAL_PLACEHOLDER) } } });
    events.push({
      type: 'sandbox',
      data: {
        writeRoots: input.writeRoots,
        ...(input.reportDir !== undefined ? { reportDir: input.reportDir } : {}),
        sandboxEnforcesFs: input.sandboxEnforcesFs,
      },
    });
  }
  const agent = result.agentResult;
  if (agent) {
    events.push({
      type: 'agent',
      data: {
        stopReason: agent.stopReason,
        ...(agent.errorKind !== undefined ? { errorKind: agent.errorKind } : {}),
        ...(agent.limit !== undefined ? { limit: agent.limit } : {}),
        ...(agent.error !== undefined ? { errorSha256: sha256(agent.error) } : {}),
        ...(agent.provider !== undefined ? { provider: agent.provider } : {}),
        ...(agent.replay?.misses ? { replayMisses: agent.replay.misses } : {}),
      },
    });
  }
  commands.forEach((c, index) => {
    const { at: _at, argv, ...rest } = c;
    events.push({ type: 'command', data: { ...rest, argv: redactArgv(argv), index } });
  });
  const diff: DiffStats | undefined = input?.diff ?? result.diff;
  if (diff) {
    for (const change of diff.files) {
      const newBlob = evidence?.blobs[change.path]?.new;
      const oldBlob = evidence?.blobs[change.oldPath ?? change.path]?.old;
      events.push({ type: 'file_change', data: { ...change, ...(oldBlob ? { oldBlob } : {}), ...(newBlob ? { newBlob } : {}) } });
    }
    events.push({
      type: 'diff',
      data: { filesChanged: diff.filesChanged, added: diff.added, deleted: diff.deleted, ...(diff.patch ? { patch: diff.patch } : {}) },
    });
  }
  const runs: Array<[TestRunName, TestRunEvidence | undefined, TestCaseResult[] | undefined]> = [
    ['baseline', input ? input.baselineTests : result.baselineTests, input?.baselineCases],
    ['baseline_held_out', result.baselineHeldOut, undefined],
    ['tests', input ? input.tests : result.tests, input?.cases],
    ['held_out', input ? input.heldOut : result.heldOut, evidence?.heldOutCases],
  ];
  for (const [run, tests, cases] of runs) {
    if (!tests) continue;
    const { outputTail, ...rest } = tests;
    events.push({ type: 'test_run', data: { run, evidence: { ...rest, outputSha256: sha256(outputTail) }, ...(cases ? { cases: cases.length } : {}) } });
    for (const c of cases ?? []) events.push({ type: 'test_outcome', data: { run, id: c.id, status: c.status, ...(c.errored ? { errored: true } : {}) } });
  }
  if (input?.tampering) events.push({ type: 'tampering', data: input.tampering });
  if (input?.outsideWrites) events.push({ type: 'outside_writes', data: input.outsideWrites });
  if (input?.content) {
    const { findings, ...scan } = input.content;
    events.push({ type: 'content_findings', data: { ...scan, findings: findings.map(({ excerpt: _excerpt, ...f }) => f) } });
  }
  for (const c of result.checks) {
    events.push({ type: 'check', data: { id: c.id, passed: c.passed, severity: c.severity, messageSha256: sha256(c.message) } });
  }
  events.push({
    type: 'verdict',
    data: {
      end: endOf(result, evidence !== undefined),
      verdict: result.verdict,
      cause: result.cause,
      ...(result.score !== undefined ? { score: result.score } : {}),
      ...(result.resourceLimit !== undefined ? { resourceLimit: result.resourceLimit } : {}),
      messageSha256: sha256(result.message),
    },
  });
  return events;
}

/** How the engine ended the attempt, from what it recorded (engine/attempt.ts). */
function endOf(result: AttemptResult, verified: boolean): TraceEnd {
  if (verified) return result.cause === 'harness_error' && result.harnessError?.phase === 'verify' ? 'never_ran' : 'graded';
  if (result.cause === 'task_error') return 'task_error';
  if (result.cause === 'harness_error') return 'harness_error';
  if (result.cause === 'resource_exceeded') return 'resource';
  return 'unverifiable';
}

/** commands.jsonl as the harness wrote it (an attempt that ended before verification). */
async function readCommandLog(file: string): Promise<CommandEvent[]> {
  const stat = await lstat(file).catch(() => undefined);
  if (!stat?.isFile()) return [];
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as CommandEvent];
      } catch {
        return [];
      }
    });
}
