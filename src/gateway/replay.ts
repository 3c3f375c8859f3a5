import type { CanonicalRequest } from './canonical.js';
import type { CassetteExchange } from './cassette.js';
import { describeDifferences, distance } from './request-diff.js';

export type ReplayMatch = { hit: true; exchange: CassetteExchange } | { hit: false; diff: string };

/** Serves a session's recorded exchanges by request hash; repeats of one request come back in recorded order. */
export class ReplayBook {
  private readonly queues = new Map<string, CassetteExchange[]>();
  private readonly servedCount = new Map<string, number>();

  constructor(private readonly exchanges: readonly CassetteExchange[]) {
    for (const exchange of exchanges) {
      const queue = this.queues.get(exchange.request.hash) ?? [];
      queue.push(exchange);
      this.queues.set(exchange.request.hash, queue);
    }
  }

  take(hash: string, canonical: CanonicalRequest): ReplayMatch {
    const queue = this.queues.get(hash) ?? [];
    const served = this.servedCount.get(hash) ?? 0;
    const exchange = queue[served];
    if (exchange) {
      this.servedCount.set(hash, served + 1);
      return { hit: true, exchange };
    }
    return { hit: false, diff: this.explainMiss(canonical, queue) };
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
    let closest = this.exchanges[0] as CassetteExchange;
    let best = Number.POSITIVE_INFINITY;
    for (const candidate of this.exchanges) {
      const d = distance(canonical, candidate.request.canonical);
      if (d < best) {
        best = d;
        closest = candidate;
      }
    }
    const lines = describeDifferences(canonical, closest.request.canonical);
    return [`replay miss: no recorded exchange matches ${what}; closest is #${closest.seq}, which differs in:`, ...lines.map((l) => `  ${l}`)].join('\n');
  }
}
