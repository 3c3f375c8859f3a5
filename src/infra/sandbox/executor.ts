/**
 * The sandbox contract. Every implementation kills the whole process tree on timeout, bounds
 * output, never inherits the host environment, and reports what isolation it really provides.
 */
export type NetworkMode =
  /** Nothing reachable, host loopback included. */
  | 'none'
  /** Only the model gateway (bridged in by the gateway module). */
  | 'gateway'
  /** The host network. Used only for a task's own `setup` commands, never for agents or tests. */
  | 'host';

export interface ExecRequest {
  argv: string[];
  cwd: string;
  /** The complete environment of the child; merged over a minimal base (PATH, HOME, LANG, TMPDIR). */
  env?: Record<string, string>;
  timeoutMs: number;
  /** Per stream; output beyond it is dropped and `truncated` set. Default 1 MiB. */
  maxOutputBytes?: number;
  network: NetworkMode;
  stdin?: string;
  /** Aborting kills the process tree like a timeout (but `timedOut` stays false). */
  signal?: AbortSignal;
}

export interface ExecResult {
  /**
   * Set when the command was stopped, or failed, because it hit one of the layout's limits (pids,
   * memory, cpu_time, file_size); the name of the limit.
   */
  limitExceeded?: ExecLimitName;
  /** Null when the process was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
  durationMs: number;
  /**
   * The command never started: the errno (`ENOENT`, `EACCES`, …) the executor's own spawn of it
   * got, as the sandbox's supervisor reported it out of band (the bwrap init's control socket, which
   * the command never holds) or the harness's own spawn threw it. The stderr line and exit code
   * 127/126 that go with it are for people: a command can print and return those itself.
   */
  notStarted?: string;
  /**
   * The sandbox's supervisor channel carried what its supervisor never writes (a second or a
   * malformed report): only the command can have written it, so the rest of the supervisor's
   * report is not believed, and the result is evidence against the command (bwrap.ts
   * parseInitReport), never the harness's failure.
   */
  forgedReport?: string;
}

/** What a sandbox enforces: callers ask this, never the sandbox's name. */
export interface SandboxCapabilities {
  /** `network: 'none'` really cuts the network. */
  readonly network: boolean;
  /** Writes outside the writable roots fail. */
  readonly filesystem: boolean;
  /** Hidden paths cannot be read. */
  readonly hiding: boolean;
  /** The network modes `exec` accepts. */
  readonly networkModes: readonly NetworkMode[];
  /**
   * Commands see the layout at its host paths and their writes land there as they happen. False:
   * the executor copies the layout in (archive in) and the writable roots back out after each
   * command (archive out), the only way to a sandbox on another machine.
   */
  readonly hostPaths: boolean;
  /** Runs a task's `environment:` image, and records the image each attempt ran on. */
  readonly runsTaskImages: boolean;
  /** Mounts `layout.overlay` (a kernel overlay over a shared lower tree) before the command runs. */
  readonly treeOverlay: boolean;
}

/** An executor's capabilities: its kind's, as this machine and this engine allow, and the limits it enforces. */
export interface ExecutorCapabilities extends SandboxCapabilities {
  /**
   * The limits this executor enforces on the whole command, as ExecLimits describes them; a limit
   * of layout.limits that is not listed is at best applied per process, or not at all.
   */
  readonly limits: readonly ExecLimitName[];
}

export interface Executor {
  readonly kind: SandboxKind;
  readonly capabilities: ExecutorCapabilities;
  exec(req: ExecRequest): Promise<ExecResult>;
  /**
   * Ends everything the executor keeps between commands (docker: its containers). Callers call it
   * once, when the phase is over, whatever happened; it never throws and is safe to call twice.
   */
  close(): Promise<void>;
  /** docker: the image id the executor's containers reported (undefined before the first command). */
  containerImageId?(): string | undefined;
}

export type SandboxKind = 'local' | 'bwrap' | 'docker';

/**
 * The task's environment as the docker executor runs it: an image already present locally and the
 * limits that only a container applies. Absent: the host's toolchain view (see docs/sandbox.md).
 */
export interface ContainerEnvironment {
  /** Local image id (`sha256:…`) to run; resolved and built by src/domain/environment, never pulled here. */
  imageId: string;
  /**
   * The image is built on the host view (HOST_IMAGE): its containers get the host's toolchain
   * bound in read-only and the host's PATH, with the image's own variables on top.
   */
  hostView?: boolean;
  /** `os/arch[/variant]`, when the task pins one. */
  platform?: string;
  /** CPU share of the container (docker `NanoCpus` / 1e9). */
  cpus?: number;
  /** Size limit of the container's writable layer, where the storage driver supports one. */
  storageBytes?: number;
  /** Container-native task: the absolute path in the image where the workspace is mounted (its files were copied out of it). */
  workdir?: string;
  /**
   * The image's own filesystem is writable, in a layer removed with the container: a container-native
   * task's verifier, which may install its tools at test time. Never an agent phase.
   */
  writableRoot?: boolean;
}

/** What an executor may touch; fixed for its lifetime (one attempt). */
export interface SandboxLayout {
  /** Directories the child may write (the workspace, a results dir). Everything else is read-only. */
  writable: string[];
  /** Paths replaced by an empty directory (task sets with oracle patches, held-out tests, secrets). */
  hidden: string[];
  /** Paths re-exposed read-only inside hidden ones (e.g. the baseline object store). */
  readOnly: string[];
  /** Private HOME for the child; created by the caller. */
  home: string;
  /** Private TMPDIR for the child when the executor cannot give one of its own. */
  tmp: string;
  /**
   * The model gateway for `network: 'gateway'`: it listens on `socketPath` (a Unix socket on the
   * host) and sandboxed children reach it at http://127.0.0.1:<port>. Executors that cannot bridge
   * (local) ignore it; the caller then hands the child the gateway's TCP URL instead.
   */
  gateway?: { socketPath: string; port: number };
  /** Per-command resource limits; executors that cannot enforce one say so in `capabilities.limits`. */
  limits?: ExecLimits;
  /** docker only: the image to run instead of the host's toolchain view. Other executors refuse a layout with one. */
  environment?: ContainerEnvironment;
  /**
   * docker only (with `environment`): host directories shown at another path in the container, e.g.
   * the workspace at a container-native task's workdir (`/app`), a verifier's files at `/tests`.
   */
  mounts?: PathMount[];
  /**
   * bwrap only: the workspace given as an overlay (tree-overlay.ts) instead of a directory of its
   * own: mounted at `target` before the sandbox starts, in a user and mount namespace of the
   * command's own, or entered where a holder keeps it mounted for every command (`heldBy`). Other
   * executors refuse a layout with one (their trees are copies).
   */
  overlay?: TreeOverlay;
}

/** An overlay of a shared tree: `lower` is never written; what the sandbox writes lands in `upper`. */
export interface TreeOverlay {
  driver: OverlayDriver;
  lower: string;
  upper: string;
  /** The overlay's scratch directory, empty, on the same filesystem as `upper`: overlayfs's own. */
  work: string;
  /** Where the merged tree appears (an empty directory on the host). */
  target: string;
  /**
   * Mounted already, once, by an overlay holder (overlay-holder.ts), this process: commands enter
   * its namespace instead of mounting their own.
   */
  heldBy?: number;
}

/** Kernel overlayfs mounted in an unprivileged user namespace (5.11 and later). */
export type OverlayDriver = 'kernel-overlay';

/** A host directory bound at `target` in the container. */
export interface PathMount {
  source: string;
  target: string;
  readOnly: boolean;
}

export type ExecLimitName = 'pids' | 'memory' | 'cpu_time' | 'file_size';

export interface ExecLimits {
  /** Processes and threads of the command alive at once. */
  pids?: number;
  /** Memory of all the command's processes together. */
  memoryBytes?: number;
  /** CPU time of all the command's processes together. */
  cpuSeconds?: number;
  /** Largest file any process may write (RLIMIT_FSIZE). */
  fileSizeBytes?: number;
}
