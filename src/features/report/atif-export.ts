import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { version } from '../../core/version.js';
import { attemptDir, attemptFile, readAttemptRecord, readCheckpoint, writeFileAtomic } from '../../domain/run-dir/index.js';
import { readBounded } from './artifacts.js';
import { toAtif, type AtifTrajectory } from './atif.js';

/** Past this a trajectory is not exported: its end would be lost, and a cut trajectory is not one. */
const MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024;

/**
 * One attempt's trajectory.jsonl as an ATIF document, with the attempt's record for what the
 * trajectory does not say (the agent's version, the metered cost, the verdict); undefined when
 * the attempt kept no trajectory (reference agents keep none) or kept one too large to export whole.
 */
export async function atifOfAttempt(runDir: string, attemptId: string): Promise<AtifTrajectory | undefined> {
  const text = await readBounded(attemptFile(attemptDir(runDir, attemptId), 'trajectory'), MAX_TRAJECTORY_BYTES);
  if (text === null || text.truncated) return undefined;
  const a = await readAttemptRecord(runDir, attemptId);
  const costUsd = a?.agentResult?.usage?.costUsd;
  return toAtif(text.text, {
    sessionId: attemptId,
    agentName: a?.agent ?? attemptId,
    // The built-in agent is Crucible's own: its version is Crucible's. An external agent's is what its version command printed.
    agentVersion: a?.agentInfo ? (a.agentInfo.version ?? 'unknown') : version(),
    ...(costUsd !== undefined ? { costUsd } : {}),
    extra: {
      crucible: {
        version: version(),
        ...(a
          ? {
              run_id: a.runId,
              attempt_id: a.attemptId,
              task_id: a.taskId,
              trial: a.trial,
              verdict: a.verdict,
              cause: a.cause,
              ...(a.agentInfo ? { profile: a.agentInfo.profile } : {}),
            }
          : { attempt_id: attemptId }),
      },
    },
  });
}

export interface AtifExport {
  written: string[];
  /** Attempts with no trajectory to export, and why. */
  skipped: Array<{ attemptId: string; reason: string }>;
}

/** `crucible export <run> --format atif`: every recorded attempt's trajectory as `<dir>/<attempt-id>.json`. */
export async function exportAtif(runDir: string, dir: string): Promise<AtifExport> {
  const { entries } = await readCheckpoint(runDir);
  await mkdir(dir, { recursive: true });
  const out: AtifExport = { written: [], skipped: [] };
  for (const entry of entries) {
    const trajectory = await atifOfAttempt(runDir, entry.attemptId);
    if (trajectory === undefined) {
      out.skipped.push({ attemptId: entry.attemptId, reason: 'it kept no trajectory (reference agents keep none), or one too large to export whole' });
      continue;
    }
    const file = join(dir, `${entry.attemptId}.json`);
    await writeFileAtomic(file, `${JSON.stringify(trajectory, null, 2)}\n`);
    out.written.push(file);
  }
  return out;
}
