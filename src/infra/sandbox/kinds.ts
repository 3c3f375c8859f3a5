import type { SandboxKind } from './executor.js';

/**
 * What each kind of sandbox can do, asked by callers instead of its name: a new kind is one entry
 * here and its executor, and no caller changes.
 */
export interface SandboxTraits {
  /** Runs a task's `environment:` image, and records the image each attempt ran on. */
  readonly runsTaskImages: boolean;
  /** Needs bubblewrap to work on this machine. */
  readonly needsBwrap: boolean;
  /** Needs a Docker engine to answer. */
  readonly needsDockerEngine: boolean;
}

const TRAITS: Readonly<Record<SandboxKind, SandboxTraits>> = {
  local: { runsTaskImages: false, needsBwrap: false, needsDockerEngine: false },
  bwrap: { runsTaskImages: false, needsBwrap: true, needsDockerEngine: false },
  docker: { runsTaskImages: true, needsBwrap: false, needsDockerEngine: true },
};

export function sandboxTraits(kind: SandboxKind): SandboxTraits {
  return TRAITS[kind];
}

/** A sandbox name read back from a record (the history, a checkpoint): its traits when it is one. */
export function traitsOfRecorded(name: string | undefined): SandboxTraits | undefined {
  return name !== undefined && Object.hasOwn(TRAITS, name) ? TRAITS[name as SandboxKind] : undefined;
}
