import { join } from 'node:path';
import { ATTEMPT_FILES } from '../run-dir/index.js';
import type { AttemptResult, Task } from '../../core/types/index.js';
import type { Agent } from '../agents/index.js';
import { walkArtifacts } from './artifacts.js';
import { sha256Hex } from './canonical.js';
import { crucibleFacts, hostFacts } from './host.js';
import { MANIFEST_FILE, MANIFEST_SCHEMA_VERSION, type AgentFacts, type AttemptManifest } from './schema.js';
import { taskFacts } from './task-facts.js';
import { writeManifestFile } from './write.js';

/** What the engine knows about an attempt beyond its record: the task it ran and the agent that ran it. */
export interface ManifestSubject {
  task: Task;
  agent: Pick<Agent, 'name' | 'modelSpec'>;
}

export interface AttemptManifestInput extends ManifestSubject {
  attemptDir: string;
  result: AttemptResult;
  /** attempt.json's text exactly as it will be written (attemptJsonText). */
  attemptJson: string;
  /** Top-level names of the attempt directory that are scratch, not evidence. */
  scratch: readonly string[];
}

/** attempt.json's bytes: the same text writeJsonAtomic writes, so the checkpoint's hash and the manifest's agree. */
export function attemptJsonText(result: AttemptResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/**
 * Writes `manifest.json` for an attempt whose attempt.json is about to be written: every file the
 * attempt kept is hashed from disk, attempt.json from the text given. Called before attempt.json
 * is written, so an attempt.json on disk (the commit point resume trusts) always has its manifest.
 * Returns the manifest's SHA-256.
 */
export async function writeAttemptManifest(input: AttemptManifestInput): Promise<string> {
  return writeManifestFile(join(input.attemptDir, MANIFEST_FILE), await buildAttemptManifest(input));
}

export async function buildAttemptManifest(input: AttemptManifestInput): Promise<AttemptManifest> {
  const { result, task } = input;
  const scratch = [...input.scratch].sort();
  const kept = await walkArtifacts(input.attemptDir, { skip: [...scratch, MANIFEST_FILE, ATTEMPT_FILES.record] });
  const record = { path: ATTEMPT_FILES.record, type: 'file' as const, sha256: sha256Hex(input.attemptJson), size: Buffer.byteLength(input.attemptJson) };
  const artifacts = [...kept, record].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    schemaVersion: MANIFEST_SCHEMA_VERSION,
    kind: 'attempt',
    attemptId: result.attemptId,
    parentRun: result.runId,
    taskId: result.taskId,
    trial: result.trial,
    crucible: await crucibleFacts(),
    host: hostFacts(),
    sandbox: { kind: result.sandbox, limits: task.limits },
    ...(result.environment ? { environment: result.environment } : {}),
    task: await taskFacts(task, result.baselineCommit),
    agent: agentFacts(input, result),
    scratch,
    artifacts,
  };
}

function agentFacts(input: ManifestSubject, result: AttemptResult): AgentFacts {
  const info = result.agentInfo;
  const model = input.agent.modelSpec ? `${input.agent.modelSpec.provider}:${input.agent.modelSpec.modelId}` : info?.model;
  return {
    spec: result.agent,
    name: input.agent.name,
    ...(model ? { model } : {}),
    ...(info
      ? {
          profile: {
            name: info.profile,
            sha256: info.profileHash,
            ...(info.version !== undefined ? { version: info.version } : {}),
            ...(info.package !== undefined ? { package: info.package } : {}),
          },
        }
      : {}),
  };
}
