import { requestHash, withoutToolOutputs, type CanonicalRequest } from './canonical.js';
import type { CassetteExchange } from './cassette.js';
import { describeDifferences, distance } from './request-diff.js';

export type ReplayMatch = { hit: true; exchange: CassetteExchange; loose: boolean } | { hit: false; diff: string };

/**
 * Serves a session's recorded exchanges by request hash; repeats of one request come back in
 * recorded order. When no exact match is left, a request that differs from a recorded one only in
 * tool output (see withoutToolOutputs) gets that exchange, reported as `loose`.
 *
 * Recorded requests are matched by their canonical form normalised again on load (the stored hash
 * is not trusted), so cassettes recorded before a normalisation existed, or by a session with other
 * volatile values, still match a request normalised the same way now.
 */
export class ReplayBook {
  private readonly exact = new Map<string, CassetteExchange[]>();
  private readonly loose = new Map<string, CassetteExchange[]>();
  private readonly served = new Set<CassetteExchange>();
  private readonly canonicalOf = new Map<CassetteExchange, CanonicalRequest>();

  constructor(
    private readonly exchanges: readonly CassetteExchange[],
    normalise: (canonical: CanonicalRequest) => CanonicalRequest = (canonical) => canonical,
  ) {
    for (const exchange of exchanges) {
      const canonical = normalise(exchange.request.canonical);
      this.canonicalOf.set(exchange, canonical);
      push(this.exact, requestHash(canonical), exchange);
      push(this.loose, looseHash(canonical), exchange);
    }
  }

  take(hash: string, canonical: CanonicalRequest): ReplayMatch {
    const exact = this.exact.get(hash) ?? [];
    const strict = this.next(exact);
    if (strict) return { hit: true, exchange: strict, loose: false };
    const similar = this.next(this.loose.get(looseHash(canonical)) ?? []);
    if (similar) return { hit: true, exchange: similar, loose: true };
    return { hit: false, diff: this.explainMiss(canonical, exact) };
  }

  private recorded(exchange: CassetteExchange): CanonicalRequest {
    return this.canonicalOf.get(exchange) ?? exchange.request.canonical;
  }

  /** The first recording not yet served, in recorded order, on this request's route and model (else on any). */
  private nextDue(canonical: CanonicalRequest): CassetteExchange | undefined {
    const pending = this.exchanges.filter((e) => !this.served.has(e)).sort((a, b) => a.seq - b.seq);
    return pending.find((e) => routeOf(this.recorded(e)) === routeOf(canonical)) ?? pending[0];
  }

  private next(queue: CassetteExchange[]): CassetteExchange | undefined {
    const exchange = queue.find((e) => !this.served.has(e));
    if (exchange) this.served.add(exchange);
    return exchange;
  }

  private explainMiss(canonical: CanonicalRequest, sameRequest: CassetteExchange[]): string {
    const what = `${canonical.method} ${canonical.path}${typeof canonical['model'] === 'string' ? ` (model ${canonical['model']})` : ''}`;
    if (sameRequest.length > 0) {
      return (
        `replay miss: ${what} matches recorded exchange ${sameRequest.map((e) => `#${e.seq}`).join(', ')}, ` +
        `but it was recorded ${sameRequest.length} time(s) and all were already served`
      );
    }
    if (this.exchanges.length === 0) return `replay miss: ${what}; the cassette holds no exchanges`;
    // The recording the replay was due to serve next for this route is what the request should have
    // been: a changed instruction differs from it first in the instruction, whatever else is closer.
    const expected = this.nextDue(canonical);
    if (expected) {
      const [first, ...rest] = describeDifferences(canonical, this.recorded(expected));
      return [
        `replay miss: no recorded exchange matches ${what}; the next recording due, #${expected.seq}, first differs at ${first ?? '(nothing)'}`,
        ...(rest.length > 0 ? ['  and also in:', ...rest.map((l) => `  ${l}`)] : []),
      ].join('\n');
    }
    let closest = this.exchanges[0] as CassetteExchange;
    let best = Number.POSITIVE_INFINITY;
    for (const candidate of this.exchanges) {
      const d = distance(canonical, this.recorded(candidate));
      if (d < best) {
        best = d;
        closest = candidate;
      }
    }
    const lines = describeDifferences(canonical, this.recorded(closest));
    return [`replay miss: no recorded exchange matches ${what}; closest is #${closest.seq}, which differs in:`, ...lines.map((l) => `  ${l}`)].join('\n');
  }
}

function routeOf(canonical: CanonicalRequest): string {
  return JSON.stringify([canonical.upstream, canonical.method, canonical.path, canonical['model']]);
}

function looseHash(canonical: CanonicalRequest): string {
  return requestHash(withoutToolOutputs(canonical));
}

function push(map: Map<string, CassetteExchange[]>, key: string, exchange: CassetteExchange): void {
  const queue = map.get(key) ?? [];
  queue.push(exchange);
  map.set(key, queue);
}
