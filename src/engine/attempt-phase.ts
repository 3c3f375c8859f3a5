/** An attempt's phases as its record names them: where the time went, and where a harness fault happened. */
import type { AttemptResult } from '../core/types/index.js';

export type Phase = 'prepare' | 'agent' | 'verify' | 'record';

/** A failure inside a phase, carrying the phase it happened in. */
export class PhaseError extends Error {
  constructor(
    readonly phase: Phase,
    readonly original: unknown,
  ) {
    super(original instanceof Error ? original.message : String(original));
  }
}

/** Runs one phase, timing it into `timings[key]`; what it throws comes out as a PhaseError naming `phase`. */
export async function timed<T>(
  timings: AttemptResult['timings'],
  key: 'prepareMs' | 'baselineMs' | 'agentMs' | 'verifyMs',
  phase: Phase,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } catch (error) {
    throw error instanceof PhaseError ? error : new PhaseError(phase, error);
  } finally {
    timings[key] = Math.round(performance.now() - started);
  }
}
