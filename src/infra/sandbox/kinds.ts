import type { ExecLimitName, ExecutorCapabilities, NetworkMode, SandboxCapabilities, SandboxKind } from './executor.js';

/**
 * What each kind promises and what it needs on this machine, asked by callers instead of its name:
 * a new kind is one entry here and its executor, and no caller changes.
 */
export interface SandboxTraits extends SandboxCapabilities {
  /** Needs bubblewrap to work on this machine. */
  readonly needsBwrap: boolean;
  /** Needs a Docker engine to answer. */
  readonly needsDockerEngine: boolean;
}

const ALL_NETWORKS: readonly NetworkMode[] = Object.freeze(['none', 'gateway', 'host']);
const CONFINED = { network: true, filesystem: true, hiding: true, networkModes: ALL_NETWORKS, hostPaths: true } as const;

const TRAITS: Readonly<Record<SandboxKind, SandboxTraits>> = Object.freeze({
  local: Object.freeze({
    ...CONFINED,
    network: false,
    filesystem: false,
    hiding: false,
    runsTaskImages: false,
    treeOverlay: false,
    needsBwrap: false,
    needsDockerEngine: false,
  }),
  bwrap: Object.freeze({ ...CONFINED, runsTaskImages: false, treeOverlay: true, needsBwrap: true, needsDockerEngine: false }),
  docker: Object.freeze({ ...CONFINED, runsTaskImages: true, treeOverlay: false, needsBwrap: false, needsDockerEngine: true }),
});

export function sandboxTraits(kind: SandboxKind): SandboxTraits {
  return TRAITS[kind];
}

/** A sandbox name read back from a record (the history, a checkpoint): its traits when it is one. */
export function traitsOfRecorded(name: string | undefined): SandboxTraits | undefined {
  return name !== undefined && Object.hasOwn(TRAITS, name) ? TRAITS[name as SandboxKind] : undefined;
}

/** The capabilities of one executor of `kind`: the kind's, with what this executor found it can do. */
export function executorCapabilities(
  kind: SandboxKind,
  found: { limits: readonly ExecLimitName[]; hostPaths?: boolean; networkModes?: readonly NetworkMode[] },
): ExecutorCapabilities {
  const { needsBwrap: _bwrap, needsDockerEngine: _engine, ...promised } = TRAITS[kind];
  return Object.freeze({
    ...promised,
    limits: Object.freeze([...found.limits]),
    ...(found.hostPaths !== undefined ? { hostPaths: found.hostPaths } : {}),
    ...(found.networkModes !== undefined ? { networkModes: Object.freeze([...found.networkModes]) } : {}),
  });
}
