import type { ProviderFailureKind, ProviderHealth } from '../../core/types/index.js';
import type { Delivery } from './deliver.js';
import type { ReplySource } from './forward.js';

/** The stall limit when none is given: long enough for a slow first token, short of any agent timeout. */
export const DEFAULT_PROVIDER_STALL_MS = 5 * 60_000;

/** How one forwarded model request ended, as the gateway saw it. */
export interface ExchangeOutcome {
  status: number;
  /** The gateway answered this itself after the provider could not be reached (refused, reset, no answer). */
  unreachable?: boolean;
  /** The provider's body broke off (connection reset, bytes missing) before it was complete. */
  brokeOff?: boolean;
  /** The provider went silent past the stall limit and the gateway gave up on it. */
  stalled?: boolean;
  /** A 2xx event stream that ended without its terminal event, or carried an error event. */
  stream?: 'cut' | 'error';
  /** The client left before the answer was complete: not the provider's failure. */
  clientGone?: boolean;
  detail?: string;
}

/**
 * One exchange's outcome from what the handler knows: the delivery, the source it came from, and
 * the error that stopped the gateway reaching the provider (`stalled` for the stall limit), if any.
 */
export function outcomeOf(delivery: Delivery, source: ReplySource, unreachable: string | undefined, stallMs?: number): ExchangeOutcome {
  // A client that gave up on a stream the provider had left silent for half the stall limit gave
  // up on a stalled provider (agents' own idle timeouts race the gateway's; the agent timeout too).
  const clientGaveUpOnSilence = stallMs !== undefined && stallMs > 0 && delivery.silentMs !== undefined && delivery.silentMs >= stallMs / 2;
  const stalled = unreachable === 'stalled' || source.stalled?.() === true || clientGaveUpOnSilence;
  const detail = stalled
    ? 'the provider went silent past the stall limit'
    : unreachable !== undefined
      ? `unreachable: ${unreachable}`
      : delivery.brokenBy === 'upstream'
        ? `the response broke off: ${delivery.upstreamError ?? 'incomplete body'}`
        : delivery.stream?.detail;
  return {
    status: delivery.status,
    ...(unreachable !== undefined && !stalled ? { unreachable: true } : {}),
    ...(stalled ? { stalled: true } : {}),
    ...(delivery.brokenBy === 'upstream' ? { brokeOff: true } : {}),
    ...(delivery.brokenBy === 'client' && !clientGaveUpOnSilence ? { clientGone: true } : {}),
    ...(delivery.stream ? { stream: delivery.stream.stream } : {}),
    ...(detail !== undefined ? { detail } : delivery.status >= 400 ? { detail: `HTTP ${delivery.status}` } : {}),
  };
}

/**
 * What happened at the provider, per request: a failure (5xx, unreachable or reset, a stream cut
 * short or stalled, an error event inside a 2xx stream), a refusal (429), or an answer. Undefined
 * for an answer, and for a request the client abandoned (its own choice, whatever the provider did).
 */
export function providerFailureOf(outcome: ExchangeOutcome): ProviderFailureKind | undefined {
  if (outcome.stalled) return 'stalled';
  if (outcome.unreachable) return 'unreachable';
  if (outcome.status >= 500) return 'status';
  if (outcome.status === 429) return 'rate_limited';
  if (outcome.clientGone) return undefined;
  if (outcome.brokeOff || outcome.stream === 'cut') return 'cut';
  if (outcome.stream === 'error') return 'stream_error';
  return undefined;
}

/**
 * One session's record of its provider: every forwarded model request, which failed and how, and
 * the time the agent waited between a failed or refused answer and its next request (what a retry
 * or rate-limit wait really cost, whoever did the waiting).
 */
export class ProviderWatch {
  private requests = 0;
  private answered = 0;
  private failed = 0;
  private readonly byKind: Partial<Record<ProviderFailureKind, number>> = {};
  private last: ProviderHealth['last'];
  private retryWaitMs = 0;
  /** performance.now() when the last failed or refused answer ended, until the next request. */
  private waitingSince: number | undefined;

  /** The upstream of the latest request; an attempt's requests go to its one provider. */
  private name = '';

  /** A model request arrived (forwarded or served from a recording). */
  requestArrived(now: number): void {
    if (this.waitingSince !== undefined) this.retryWaitMs += Math.max(0, now - this.waitingSince);
    this.waitingSince = undefined;
  }

  /** The request's answer ended (or the gateway gave up on it) at `now`. */
  answerEnded(seq: number, upstream: string, outcome: ExchangeOutcome, now: number): ProviderFailureKind | undefined {
    this.requests++;
    this.name = upstream;
    const failure = providerFailureOf(outcome);
    if (failure === undefined) {
      // A request the client left unfinished says nothing of the provider: the last word on it
      // stays with the request before (a stall the agent retried, then was stopped waiting on).
      if (outcome.clientGone) return undefined;
      const ok = outcome.status >= 200 && outcome.status < 300;
      if (ok) this.answered++;
      this.last = { seq, ok, status: outcome.status };
      return undefined;
    }
    if (failure !== 'rate_limited') this.failed++;
    this.byKind[failure] = (this.byKind[failure] ?? 0) + 1;
    this.last = { seq, ok: false, status: outcome.status, failure, ...(outcome.detail ? { detail: oneLine(outcome.detail) } : {}) };
    this.waitingSince = now;
    return failure;
  }

  snapshot(): ProviderHealth {
    return {
      name: this.name,
      requests: this.requests,
      answered: this.answered,
      failed: this.failed,
      byKind: { ...this.byKind },
      retryWaitMs: Math.round(this.retryWaitMs),
      ...(this.last ? { last: { ...this.last } } : {}),
    };
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
