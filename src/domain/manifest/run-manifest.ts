import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../../core/types/index.js';
import { profileHash, type AgentProfile } from '../agents/index.js';
import { bundledPricingPath } from '../../infra/gateway/index.js';
import { attemptDir, RUN_FILES, RUN_REPORT_FILES } from '../run-dir/index.js';
import { sha256File, walkArtifacts } from './artifacts.js';
import { crucibleFacts, hostFacts } from './host.js';
import { MANIFEST_FILE, MANIFEST_SCHEMA_VERSION, type RunAttemptEntry, type RunManifest } from './schema.js';
import { fileSha256, taskFacts } from './task-facts.js';
import { writeManifestFile } from './write.js';

/**
 * Run-level names a run manifest does not cover: the reports, written after it from the files it
 * covers (and rewritten by `crucible report`), the strength snapshot the reports read (copied from
 * `validate --strength`'s file after the run, not an output of it), and the run's lock while a
 * process holds it.
 */
export const RUN_DERIVED = [...Object.values(RUN_REPORT_FILES), RUN_FILES.strength, RUN_FILES.lock].sort();

export interface RunManifestInput {
  runDir: string;
  runId: string;
  tasks: readonly Task[];
  /** Agent specs as given. */
  agents: readonly string[];
  profiles?: readonly AgentProfile[];
  sandbox: string;
  /** Set when model agents ran: the override pricing file, if one was given. */
  models?: { pricingFile?: string };
  /** The finished attempts, in plan order. */
  attemptIds: readonly string[];
  /** Top-level names of an attempt directory that are scratch (ATTEMPT_SCRATCH_DIRS). */
  scratch: readonly string[];
}

/**
 * Writes `<runDir>/manifest.json` when a run (or a resume of it) ends: what ran, the run's own
 * files, and for every finished attempt the SHA-256 of its manifest, so this one file commits to
 * every recorded artifact. An attempt without a manifest (recorded by the engine before it ran, a
 * task error) has its files hashed here instead. Returns the manifest's SHA-256.
 */
export async function writeRunManifest(input: RunManifestInput): Promise<string> {
  return writeManifestFile(join(input.runDir, MANIFEST_FILE), await buildRunManifest(input));
}

export async function buildRunManifest(input: RunManifestInput): Promise<RunManifest> {
  const taskSetPaths = [...new Set(input.tasks.map((t) => t.sourceFile))].sort();
  const scratch = [...input.scratch].sort();
  const attempts: RunAttemptEntry[] = [];
  for (const attemptId of input.attemptIds) {
    const dir = attemptDir(input.runDir, attemptId);
    const manifest = join(dir, MANIFEST_FILE);
    if (await isFile(manifest)) attempts.push({ attemptId, manifest: await sha256File(manifest) });
    else attempts.push({ attemptId, manifest: null, artifacts: await walkArtifacts(dir, { skip: [...scratch, MANIFEST_FILE] }).catch(() => []) });
  }
  const pricing = input.models
    ? await Promise.all(
        [bundledPricingPath(), ...(input.models.pricingFile !== undefined ? [input.models.pricingFile] : [])].map(async (path) => ({
          path,
          sha256: await fileSha256(path),
        })),
      )
    : undefined;
  return {
    schemaVersion: MANIFEST_SCHEMA_VERSION,
    kind: 'run',
    runId: input.runId,
    crucible: await crucibleFacts(),
    host: hostFacts(),
    sandbox: { kind: input.sandbox },
    taskSets: await Promise.all(taskSetPaths.map(async (path) => ({ path, sha256: await fileSha256(path) }))),
    tasks: await Promise.all(input.tasks.map((t) => taskFacts(t))),
    agents: [...input.agents],
    profiles: (input.profiles ?? []).map((p) => ({ name: p.name, sha256: profileHash(p) })),
    ...(pricing ? { pricing } : {}),
    files: await walkArtifacts(input.runDir, { skip: [RUN_FILES.attempts, MANIFEST_FILE, ...RUN_DERIVED] }),
    derived: RUN_DERIVED,
    scratch,
    attempts,
  };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    return false;
  }
}
