/**
 * One session of a long command (a run, a validation, an audit, a task's test run, a worker): how
 * the user's signals stop it, the same way for every front end. The first Ctrl-C stops starting
 * work and lets what runs finish (the engine's grace period, DEFAULT_GRACE_MS); a second one kills
 * what still runs. After that the session no longer listens, so a third Ctrl-C is the process's
 * own default: it ends at once, whatever hangs.
 *
 * The signals come from a SignalSource, never from `process` directly: the CLI hands in the real
 * process, an in-process caller (the CLI tests) a source of its own, and nothing is left listening
 * once the session is closed.
 */

export type SessionSignal = 'SIGINT' | 'SIGTERM';

/** Where a session hears signals: `process`, or anything with the same two methods. */
export interface SignalSource {
  on(signal: SessionSignal, listener: () => void): unknown;
  off(signal: SessionSignal, listener: () => void): unknown;
}

export interface SessionOptions {
  /**
   * What SIGTERM means: `kill` (default: a run asked to terminate kills its attempts at once, the
   * way a supervisor expects a process to end) or `stop` (a worker drains like on Ctrl-C, so a
   * deploy that sends SIGTERM does not throw its running attempts away).
   */
  terminate?: 'stop' | 'kill';
  /** Told of each signal as it arrives: `stop` for the first, `kill` for the second. */
  onSignal?: (stage: 'stop' | 'kill', signal: SessionSignal) => void;
}

export interface RunSession {
  /** Aborted by the first signal: start nothing new, let running work finish. */
  readonly stop: AbortSignal;
  /** Aborted by the second signal (or SIGTERM under `terminate: 'kill'`): end running work now. */
  readonly kill: AbortSignal;
  /** Whether a signal ended the session's work early. */
  readonly interrupted: boolean;
  /** Stops listening; call once the work is over (a `finally`). Idempotent. */
  close(): void;
}

/** Opens a session listening on `signals` until `close()`. */
export function openSession(signals: SignalSource, options: SessionOptions = {}): RunSession {
  const stop = new AbortController();
  const kill = new AbortController();
  let listening = true;
  const close = (): void => {
    if (!listening) return;
    listening = false;
    signals.off('SIGINT', onInterrupt);
    signals.off('SIGTERM', onTerminate);
  };
  const escalate = (signal: SessionSignal): void => {
    if (!stop.signal.aborted) {
      stop.abort();
      options.onSignal?.('stop', signal);
      return;
    }
    kill.abort();
    options.onSignal?.('kill', signal);
    close();
  };
  const onInterrupt = (): void => escalate('SIGINT');
  const onTerminate = (): void => {
    if (options.terminate === 'stop') return escalate('SIGTERM');
    stop.abort();
    kill.abort();
    options.onSignal?.('kill', 'SIGTERM');
    close();
  };
  signals.on('SIGINT', onInterrupt);
  signals.on('SIGTERM', onTerminate);
  return {
    stop: stop.signal,
    kill: kill.signal,
    get interrupted() {
      return stop.signal.aborted;
    },
    close,
  };
}

/** Runs `work` in a session, closing it however the work ends. */
export async function inSession<T>(signals: SignalSource, work: (session: RunSession) => Promise<T>, options?: SessionOptions): Promise<T> {
  const session = openSession(signals, options);
  try {
    return await work(session);
  } finally {
    session.close();
  }
}
