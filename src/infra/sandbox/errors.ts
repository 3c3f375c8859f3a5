/** The requested sandbox cannot run on this machine; `fix` says what to do about it. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';

  constructor(
    readonly reason: string,
    readonly fix: string,
    /** The sandbox that is missing; the fallback offered depends on it. */
    readonly sandbox: 'bwrap' | 'docker' = 'bwrap',
  ) {
    super(
      sandbox === 'docker'
        ? // A docker task needs its image: running it on the host's toolchain would grade something else.
          `--sandbox docker needs a Docker engine: ${reason} (fix: ${fix}; or pass --sandbox bwrap for tasks without an environment)`
        : `bubblewrap sandbox unavailable: ${reason}. Fix: ${fix}; or pass --sandbox local to run the agent unsandboxed.`,
    );
  }
}

/**
 * The sandbox could not be built for one exec (a missing mount source, node unreachable inside):
 * a harness error, not something the command did.
 */
export class SandboxSetupError extends Error {
  override readonly name = 'SandboxSetupError';
}
