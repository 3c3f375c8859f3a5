import type { SessionSignal, SignalSource } from '../engine/index.js';

/**
 * The process signals caught, and what each means to a session. A hang-up (the terminal or the
 * ssh session closed) is a request to end, like SIGTERM: the default would end the process where
 * it stands, mid-write.
 */
const CAUGHT: ReadonlyArray<readonly [NodeJS.Signals, SessionSignal]> = [
  ['SIGINT', 'SIGINT'],
  ['SIGTERM', 'SIGTERM'],
  ['SIGHUP', 'SIGTERM'],
];

/**
 * The process's Ctrl-C, SIGTERM and SIGHUP, caught from the first moment the CLI runs (before the program
 * and its commands load, which takes seconds on a loaded machine), and handed to whichever run
 * session listens. A signal no session hears (start-up, argument parsing, loading a task set,
 * after a session closed) ends the process at once through `unheard`, with the interrupt's exit
 * code: the process's default would end it as killed by the signal (143), which the CLI never
 * documents.
 */
export class SignalLatch implements SignalSource {
  private readonly listeners = new Map<SessionSignal, Set<() => void>>();

  constructor(
    process: Pick<NodeJS.Process, 'on'>,
    private readonly unheard: (signal: NodeJS.Signals) => void,
  ) {
    for (const [caught, meaning] of CAUGHT) process.on(caught, () => this.deliver(caught, meaning));
  }

  on(signal: SessionSignal, listener: () => void): this {
    const set = this.listeners.get(signal) ?? new Set();
    set.add(listener);
    this.listeners.set(signal, set);
    return this;
  }

  off(signal: SessionSignal, listener: () => void): this {
    this.listeners.get(signal)?.delete(listener);
    return this;
  }

  private deliver(caught: NodeJS.Signals, signal: SessionSignal): void {
    const listening = [...(this.listeners.get(signal) ?? [])];
    if (listening.length === 0) return this.unheard(caught);
    for (const listener of listening) listener();
  }
}
