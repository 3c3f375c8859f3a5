import type { AgentResult, ProviderHealth } from '../../core/types/index.js';

/**
 * When the provider, not the agent, decided an attempt (docs/grading.md#provider-errors): the last
 * model request the gateway saw failed at the provider (a 5xx, unreachable or reset, a stream cut
 * short or stalled, an error event, or a 429 the agent gave up on), or at least
 * PROVIDER_FAILURE_THRESHOLD.minFailed requests failed and they were more than
 * PROVIDER_FAILURE_THRESHOLD.share of all its requests (a provider that degraded the whole attempt,
 * even if one answer came through at the end). Undefined when the provider is not to blame.
 */
export const PROVIDER_FAILURE_THRESHOLD = { minFailed: 3, share: 0.5 } as const;

export function providerFailure(provider: ProviderHealth | undefined): string | undefined {
  if (provider === undefined || provider.requests === 0) return undefined;
  const last = provider.last;
  const where = `${provider.name || 'the provider'}`;
  const tally = `${provider.failed} of ${provider.requests} model request(s) failed at ${where}${kinds(provider)}`;
  if (last && !last.ok && last.failure !== undefined) {
    return `the last model request failed at ${where} (${last.failure}${last.detail ? `: ${last.detail}` : ''}); ${tally}`;
  }
  const { minFailed, share } = PROVIDER_FAILURE_THRESHOLD;
  if (provider.failed >= minFailed && provider.failed > share * provider.requests)
    return `${tally}, past the threshold (${minFailed} and over ${share * 100}%)`;
  return undefined;
}

/** With `--replay`: a request the cassette has no recording for is the cassette's failure, not the agent's. */
export function cassetteMiss(agentResult: AgentResult | undefined): string | undefined {
  const replay = agentResult?.replay;
  if (!replay || replay.misses === 0) return undefined;
  return `cassette error: ${replay.misses} model request(s) have no recording${replay.firstMiss ? `; ${replay.firstMiss}` : ''}`;
}

function kinds(provider: ProviderHealth): string {
  const entries = Object.entries(provider.byKind).filter(([, n]) => n !== undefined && n > 0);
  return entries.length === 0 ? '' : ` (${entries.map(([k, n]) => `${k} ${n}`).join(', ')})`;
}
