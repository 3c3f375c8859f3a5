/** Knobs of an executor that are the harness's business, not the request's. */
export interface ExecutorOptions {
  /** Time between SIGTERM and SIGKILL when a process tree is ended. Default 1000 ms. */
  killGraceMs?: number;
  /** Absolute path of bwrap; default: the first `bwrap` on the host PATH. */
  bwrapPath?: string;
}
