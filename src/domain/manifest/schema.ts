import { z } from 'zod';
import { RUN_FILES } from '../run-dir/index.js';
import type { EnvironmentProvenance, Limits } from '../../core/types/index.js';
import type { ArtifactEntry } from './artifacts.js';
import type { CrucibleFacts, HostFacts } from './host.js';
import type { TaskFacts } from './task-facts.js';

/** Bumped when a field changes meaning or goes; new optional fields keep it. */
export const MANIFEST_SCHEMA_VERSION = 1;
/** The same name at both levels: a run's manifest and each attempt's (run-dir/names.ts). */
export const MANIFEST_FILE = RUN_FILES.manifest;

/** What ran and what it left, for one attempt: `<runDir>/attempts/<id>/manifest.json`. */
export interface AttemptManifest {
  schemaVersion: typeof MANIFEST_SCHEMA_VERSION;
  kind: 'attempt';
  attemptId: string;
  /** The run the attempt belongs to. */
  parentRun: string;
  taskId: string;
  trial: number;
  crucible: CrucibleFacts;
  host: HostFacts;
  sandbox: { kind: string; limits: Limits };
  /** docker: the image the attempt ran in. */
  environment?: EnvironmentProvenance;
  task: TaskFacts;
  agent: AgentFacts;
  /** Top-level names of the attempt directory the artifact list leaves out (scratch trees). */
  scratch: string[];
  /** Every file the attempt kept (attempt.json included), by path relative to the attempt directory. */
  artifacts: ArtifactEntry[];
}

export interface AgentFacts {
  /** As given to `--agent`. */
  spec: string;
  name: string;
  /** A model agent's provider and model id, or an external agent's model. */
  model?: string;
  /** An external agent's profile and the program it ran. */
  profile?: { name: string; sha256: string; version?: string; package?: string };
}

/** One finished attempt as the run manifest commits to it. */
export type RunAttemptEntry =
  | { attemptId: string; manifest: string }
  /** An attempt recorded without a manifest of its own (a task error found before it ran): its files, hashed here. */
  | { attemptId: string; manifest: null; artifacts: ArtifactEntry[] };

/** What a run was and what it left: `<runDir>/manifest.json`, rewritten when a resume ends. */
export interface RunManifest {
  schemaVersion: typeof MANIFEST_SCHEMA_VERSION;
  kind: 'run';
  runId: string;
  crucible: CrucibleFacts;
  host: HostFacts;
  sandbox: { kind: string };
  /** Each task-set file the tasks came from (several for a suite). */
  taskSets: Array<{ path: string; sha256: string | null }>;
  tasks: TaskFacts[];
  agents: string[];
  profiles: Array<{ name: string; sha256: string }>;
  /** The prices model agents were metered with: the bundled table, and an override file when given. */
  pricing?: Array<{ path: string; sha256: string | null }>;
  /** The run directory's own files (plan, checkpoint, summary, preflight evidence). */
  files: ArtifactEntry[];
  /** Run-level names left out of `files`: written after the manifest, from the files it covers (reports), or transient. */
  derived: string[];
  /** Top-level names of an attempt directory that are scratch, not evidence (for attempts hashed here). */
  scratch: string[];
  attempts: RunAttemptEntry[];
}

const artifact = z.union([
  z.object({ path: z.string().min(1), type: z.literal('file'), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }).strict(),
  z.object({ path: z.string().min(1), type: z.enum(['symlink', 'other']) }).strict(),
]);

/** What verify relies on; the descriptive facts are checked for presence only. */
export const attemptManifestSchema = z
  .object({
    schemaVersion: z.literal(MANIFEST_SCHEMA_VERSION),
    kind: z.literal('attempt'),
    attemptId: z.string().min(1),
    parentRun: z.string().min(1),
    taskId: z.string(),
    trial: z.number(),
    crucible: z.object({ version: z.string() }).passthrough(),
    host: z.object({}).passthrough(),
    sandbox: z.object({ kind: z.string() }).passthrough(),
    task: z.object({ id: z.string() }).passthrough(),
    agent: z.object({ spec: z.string() }).passthrough(),
    scratch: z.array(
      z
        .string()
        .min(1)
        .regex(/^[^/]+$/),
    ),
    artifacts: z.array(artifact),
  })
  .passthrough();

export const runManifestSchema = z
  .object({
    schemaVersion: z.literal(MANIFEST_SCHEMA_VERSION),
    kind: z.literal('run'),
    runId: z.string().min(1),
    crucible: z.object({ version: z.string() }).passthrough(),
    host: z.object({}).passthrough(),
    files: z.array(artifact),
    derived: z.array(
      z
        .string()
        .min(1)
        .regex(/^[^/]+$/),
    ),
    scratch: z.array(
      z
        .string()
        .min(1)
        .regex(/^[^/]+$/),
    ),
    attempts: z.array(
      z.union([
        z.object({ attemptId: z.string().min(1), manifest: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
        z.object({ attemptId: z.string().min(1), manifest: z.null(), artifacts: z.array(artifact) }).strict(),
      ]),
    ),
  })
  .passthrough();
