/** The requested sandbox cannot run on this machine; `fix` says what to do about it. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';

  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`bubblewrap sandbox unavailable: ${reason}. Fix: ${fix}; or pass --sandbox local to run the agent unsandboxed.`);
  }
}

/**
 * The sandbox could not be built for one exec (a missing mount source, node unreachable inside):
 * a harness error, not something the command did.
 */
export class SandboxSetupError extends Error {
  override readonly name = 'SandboxSetupError';
}
