/** Knobs of an executor that are the harness's business, not the request's. */
export interface ExecutorOptions {
  /** Time between SIGTERM and SIGKILL when a process tree is ended. Default 1000 ms. */
  killGraceMs?: number;
  /** Absolute path of bwrap; default: the first `bwrap` on the host PATH. */
  bwrapPath?: string;
  /**
   * Whether layout.limits may use cgroups (default true). False leaves only the rlimits, for a
   * host whose cgroups are someone else's to manage.
   */
  cgroups?: boolean;
  /**
   * bwrap: the perl that runs the sandbox's init (perl-init.ts); default: /usr/bin/perl or
   * /bin/perl where it exists (it must be one the sandbox shows).
   */
  perlPath?: string;
}
