export type StopReason =
  | 'submitted'
  | 'end_turn'
  | 'max_turns'
  | 'budget_exceeded'
  | 'timeout'
  | 'context_exceeded'
  | 'error'
  | 'completed'
  /** A resource limit of the sandbox or the workspace was hit; `limit` says which. */
  | 'resource_exceeded';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  requests: number;
  /** Undefined when the model has no price in pricing.yaml: never a guess. */
  costUsd?: number;
  /**
   * Set when a provider's usage contradicted itself (more cached than prompt tokens, a negative
   * count, a total that is not input + output): how many responses did, and the first distinct
   * contradictions. The counts above are as reported (a negative one as 0), not corrected.
   */
  anomalies?: { responses: number; examples: string[] };
  /**
   * Requests the model gateway answered itself instead of forwarding (a path a URL parser would
   * rewrite, a route it does not meter, another model than the attempt's, a budget): how many,
   * per reason, and the first distinct messages.
   */
  refused?: { requests: number; reasons: Record<string, number>; examples: string[] };
  /** Per model a provider's response named, how many responses it answered. */
  models?: Record<string, number>;
  /** Side requests the gateway forwarded (model listings, token counts); not in `requests`. */
  sideRequests?: number;
}

/**
 * How a model request failed at the provider, as the gateway saw it: `status` a 5xx, `unreachable`
 * refused or reset before an answer, `cut` a body or event stream that ended before it was complete,
 * `stalled` silent past the gateway's stall limit, `stream_error` an error event inside a 2xx
 * stream, `rate_limited` a 429 (a refusal: never counted in `failed`).
 */
export type ProviderFailureKind = 'status' | 'unreachable' | 'cut' | 'stalled' | 'stream_error' | 'rate_limited';

/** The provider behind an attempt's model requests, as the gateway saw it (docs/grading.md#provider-errors). */
export interface ProviderHealth {
  /** The gateway upstream (provider) the requests went to, e.g. `openai`. */
  name: string;
  /** Model requests forwarded (or replayed); gateway refusals and replay misses are not among them. */
  requests: number;
  /** Requests the provider answered with a complete 2xx: the attempt's turns. */
  answered: number;
  /** Requests that failed at the provider (every kind but `rate_limited`). */
  failed: number;
  byKind: Partial<Record<ProviderFailureKind, number>>;
  /** Time from a failed or refused answer to the agent's next request, summed. */
  retryWaitMs: number;
  /** The last request: did it get an answer, and if not, how it failed. */
  last?: { seq: number; ok: boolean; status: number; failure?: ProviderFailureKind; detail?: string };
}

export interface AgentResult {
  stopReason: StopReason;
  /** With `stopReason: 'resource_exceeded'`: the limit that was hit. */
  limit?: import('./task.js').ResourceLimitName;
  usage?: Usage;
  /** Turns the agent took, when it has a notion of turns. */
  turns?: number;
  toolCalls?: number;
  /** Time split, when the agent knows it. */
  timings?: { modelMs?: number; rateLimitWaitMs?: number; toolMs?: number; testMs?: number };
  error?: string;
  /**
   * Who is to blame for `stopReason: 'error'`: `harness` when the infrastructure failed the agent
   * (model gateway down, rate limit retries exhausted), which grades as `harness_error` and never
   * counts against the agent; `task` when the task itself is broken (the oracle's patch does not
   * apply), which grades as `task_error`; `patch` when the agent is a set of patches made elsewhere
   * (`crucible grade`) and its patch for the task does not apply (git ran and refused it): the
   * model's failure, graded as `patch_not_applied`. Absent means the agent's own failure.
   */
  errorKind?: 'agent' | 'harness' | 'task' | 'patch';
  /**
   * Set when the model answered from a cassette (`--replay`): requests that matched a recording
   * only with tool output ignored (the environment printed differently), and requests that matched
   * nothing. Both zero means an exact replay.
   */
  replay?: { looseMatches: number; misses: number; firstMiss?: string };
  /** Model agents: the provider as the gateway saw it; grades as `provider_error` past the rule in grading/provider-failure.ts. */
  provider?: ProviderHealth;
}
