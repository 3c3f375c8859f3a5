import { readFile } from 'node:fs/promises';
import type { NpmPackageRef, PolicySpec, Task } from '../../core/types/index.js';
import { listTree } from '../../infra/workspace/index.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import { redactText } from '../../core/redact/index.js';

/**
 * A task as a manifest records it: where it came from and the hashes of what decides its grade.
 * Commands and URLs are redacted (src/core/redact); secret literals of the policy are counted, never
 * written, and no file content is copied.
 */
export interface TaskFacts {
  id: string;
  version: string;
  taskSet: { path: string; sha256: string | null };
  repo: RepoFacts;
  commands: { setup: string[]; tests: string; heldOut?: string };
  /** The oracle patch's or script's SHA-256 (`fromNpm`: the package it is taken from). */
  oracle?: { kind: 'patch' | 'script'; sha256: string; fromNpm?: PackageFacts };
  /** The held-out directory: a digest over every path, mode and content hash below it (symlinks by target). */
  heldOut?: DirectoryFacts;
  /** A reward verifier's files laid over the workspace, the same way. */
  rewardFiles?: DirectoryFacts;
  testsFrom?: PackageFacts & { paths: string[] };
  policy: RecordedPolicy;
  /** SHA-256 of the canonical JSON of `policy` as recorded. */
  policySha256: string;
}

export type RepoFacts =
  | { kind: 'local'; path: string; baselineCommit?: string }
  | { kind: 'git'; url: string; commit: string; baselineCommit?: string }
  | { kind: 'npm'; package: PackageFacts; baselineCommit?: string };

export interface PackageFacts {
  name: string;
  version: string;
  registry: string;
  integrity?: string;
}

export interface DirectoryFacts {
  path: string;
  /** Null when the directory could not be read. */
  digest: string | null;
  files: number;
}

/** The effective policy, secret literals replaced by how many there are. */
export type RecordedPolicy = Omit<PolicySpec, 'secrets'> & { secrets: { paths: string[]; presets: string[]; literals: number } };

/**
 * Facts of one task; `baselineCommit` (an attempt's baseline, committed with a fixed identity and
 * date, so a content address of the materialized repo after setup) is added when known.
 */
export async function taskFacts(task: Task, baselineCommit?: string): Promise<TaskFacts> {
  const policy = recordedPolicy(task.policy);
  const base = baselineCommit !== undefined ? { baselineCommit } : {};
  const repo: RepoFacts =
    task.repo.kind === 'local'
      ? { kind: 'local', path: task.repo.path, ...base }
      : task.repo.kind === 'git'
        ? { kind: 'git', url: redactText(task.repo.url), commit: task.repo.commit, ...base }
        : { kind: 'npm', package: packageFacts(task.repo.package), ...base };
  const oracle = task.oracle;
  return {
    id: task.id,
    version: task.version,
    taskSet: { path: task.sourceFile, sha256: await fileSha256(task.sourceFile) },
    repo,
    commands: {
      setup: task.setup.map(redactText),
      tests: redactText(task.tests.command),
      ...(task.heldOut ? { heldOut: redactText(task.heldOut.command) } : {}),
    },
    ...(oracle?.script !== undefined ? { oracle: { kind: 'script' as const, sha256: sha256Hex(oracle.script) } } : {}),
    ...(oracle?.patch !== undefined
      ? { oracle: { kind: 'patch' as const, sha256: sha256Hex(oracle.patch), ...(oracle.fromNpm ? { fromNpm: packageFacts(oracle.fromNpm.package) } : {}) } }
      : {}),
    ...(task.heldOut ? { heldOut: await directoryFacts(task.heldOut.path) } : {}),
    ...(task.tests.reward?.files !== undefined ? { rewardFiles: await directoryFacts(task.tests.reward.files) } : {}),
    ...(task.testsFrom ? { testsFrom: { ...packageFacts(task.testsFrom.package), paths: [...task.testsFrom.paths] } } : {}),
    policy,
    policySha256: sha256Hex(canonicalJson(policy)),
  };
}

function recordedPolicy(policy: PolicySpec): RecordedPolicy {
  const { secrets, ...rest } = policy;
  return { ...rest, secrets: { paths: [...secrets.paths], presets: [...secrets.presets], literals: secrets.literals.length } };
}

function packageFacts(ref: NpmPackageRef): PackageFacts {
  return { name: ref.name, version: ref.version, registry: redactText(ref.registry), ...(ref.integrity ? { integrity: ref.integrity } : {}) };
}

async function directoryFacts(path: string): Promise<DirectoryFacts> {
  try {
    const listing = await listTree(path);
    return { path, digest: listing.digest, files: [...listing.entries.values()].filter((e) => e !== 'd').length };
  } catch {
    return { path, digest: null, files: 0 };
  }
}

/** A file's SHA-256, or null when it cannot be read (a task set moved since the run). */
export async function fileSha256(path: string): Promise<string | null> {
  try {
    return sha256Hex(await readFile(path));
  } catch {
    return null;
  }
}
