import type { RunPool } from './run-pool.js';
import type { ProviderFailureKind, ProviderHealth, Usage } from '../../core/types/index.js';
import type { CassetteKey } from './cassette.js';
import type { Pricing } from './pricing.js';
import type { PathRefusal } from './request-path.js';
import type { AnsweredCall } from './request-readers.js';
import type { MeteredApi, TokenUsage } from './usage-readers.js';

export type GatewayMode = 'live' | 'record' | 'replay';

/**
 * Which wire format an upstream speaks. OpenAI-compatible providers (groq, openrouter, Azure
 * OpenAI, vLLM, ollama) are `openai`; `bedrock` is Bedrock Runtime's Converse API; `vertex` is
 * Gemini's generateContent under a Vertex AI project (`/publishers/google/models/<model>:…`).
 */
export type UpstreamKind = 'openai' | 'anthropic' | 'gemini' | 'bedrock' | 'vertex';

/**
 * How the gateway proves itself upstream, when not with the kind's own key header (`openai`:
 * `Authorization: Bearer`, `anthropic`: `x-api-key`, `gemini`: `x-goog-api-key`, `bedrock`: Bearer
 * with a Bedrock API key):
 * - `api-key`: the key in an `api-key` header (Azure OpenAI);
 * - `aws-sigv4`: each request signed with AWS Signature V4 from AWS_ACCESS_KEY_ID,
 *   AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (read at forward time), for `region`;
 * - `google-adc`: a Bearer access token from Google Application Default Credentials.
 */
export type UpstreamAuth = { scheme: 'api-key' } | { scheme: 'aws-sigv4'; region: string; service: string } | { scheme: 'google-adc' };

export interface UpstreamConfig {
  kind: UpstreamKind;
  /**
   * The base URL exactly as that provider's own SDK takes it: for `openai` it includes the version
   * segment (`https://api.openai.com/v1`, `https://api.groq.com/openai/v1`,
   * `http://127.0.0.1:11434/v1`); for `anthropic` it does not (`https://api.anthropic.com`).
   */
  baseUrl: string;
  /** Environment variable holding the real key, read at forward time. Omit for keyless local servers. */
  apiKeyEnv?: string;
  /** Default: the kind's own key header, with the key from `apiKeyEnv`. */
  auth?: UpstreamAuth;
}

export interface GatewayOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Also listen on this Unix socket, for sandboxes without a network. */
  socketPath?: string;
  /** Merged over the defaults `openai` and `anthropic`; names appear in URLs (`[a-z0-9_-]`). */
  upstreams?: Record<string, UpstreamConfig>;
  /** Default `live`. `record` and `replay` need `cassetteDir` and a `cassette` key per session. */
  mode?: GatewayMode;
  cassetteDir?: string;
  /** Default: the bundled pricing.yaml. */
  pricing?: Pricing;
  /** Where API keys are read from at forward time. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Largest request body accepted. Default 32 MiB. */
  maxRequestBytes?: number;
  /**
   * Longest an upstream may stay silent (before its headers, or between bytes of its body) before
   * the gateway cuts it off and records the request as `stalled`. Default 5 minutes; 0 for no limit.
   */
  stallMs?: number;
  /** The run's caps over all sessions (run-pool.ts): every model request holds its worst case there too. */
  runPool?: RunPool;
}

export interface Budget {
  /** Compared with inputTokens + outputTokens (input includes cached tokens). */
  maxTokens?: number;
  maxCostUsd?: number;
  /** Requests forwarded, model calls and side requests alike (upstream errors included, refusals not). */
  maxRequests?: number;
}

export type BudgetLimit = 'tokens' | 'cost' | 'requests';

/** Why the gateway answered a request itself instead of forwarding it. */
export type RefusalReason = PathRefusal | 'route_not_allowed' | 'model_not_allowed' | 'budget' | 'unpriced';

export interface SessionOptions {
  budget?: Budget;
  /**
   * The model the attempt is meant to use; priced when a request or response names none. When
   * set, the session is pinned to it: a model request (or token count) naming another model is
   * refused, unless `otherModels` is `serve`.
   */
  model?: string;
  /** `serve`: requests for other models than `model` are forwarded, and what answered is recorded per request. Default `refuse`. */
  otherModels?: 'refuse' | 'serve';
  /**
   * Stable name of this session's cassette: its parts (`[task, agent, trial]`) or one string of
   * them joined by `/`; required when recording or replaying, so a re-run finds the same file
   * (`<dir>/<task>/<agent>/<trial>.jsonl`, cassette.ts). Never a random token.
   */
  cassette?: CassetteKey;
  /**
   * Values that differ on every run of the same attempt (the workspace path, the private HOME,
   * the attempt directory): each occurrence in a request is replaced by `as` before the request is
   * matched or recorded, and `as` in a recorded response is turned back into `value` on replay.
   */
  volatile?: Array<{ value: string; as: string }>;
}

/** One model turn as the gateway saw it: what the model said and asked for, and what it cost. */
export interface ModelTurn {
  /** Order of arrival within the session (the cassette's `seq`). */
  seq: number;
  api: MeteredApi;
  /** ISO time the request arrived. */
  at: string;
  status: number;
  /** The model that answered, as the provider's response names it; the requested one when the response names none. */
  model?: string;
  /** The model the request asked for (for Gemini, the one in its path). */
  requestedModel?: string;
  text?: string;
  reasoning?: string;
  /** Tool calls the model asked for; `input` parsed from JSON when it is JSON. */
  toolCalls: Array<{ id: string; name: string; input: unknown }>;
  finishReason?: string;
  /** The system prompt the request carried (request-readers.ts), as the agent sent it to the gateway. */
  system?: string;
  /** Results this request sent back for tool calls of earlier turns, each kept once, on the first request that carried it. */
  toolResults?: AnsweredCall[];
  usage?: TokenUsage;
  latencyMs: number;
  /** Set when the request failed at the provider (or was refused with a 429): it is no turn. */
  failure?: ProviderFailureKind;
  /**
   * The answer never completed (the client left, the stream was cut or stalled): no turn, and the
   * tool calls read from its partial stream are not the agent's calls.
   */
  unfinished?: boolean;
}

export interface Session {
  /** Identifies the attempt in URLs; not a credential for any provider. */
  token: string;
  /**
   * Per upstream name, the base URL to hand the agent with any dummy API key, in the form that
   * provider's SDK expects (OPENAI_BASE_URL / ANTHROPIC_BASE_URL). The AI SDK's Anthropic provider
   * wants `${baseUrls.anthropic}/v1`.
   */
  baseUrls: { openai: string; anthropic: string } & Record<string, string>;
}

/** A replayed request that matched nothing recorded. */
export interface ReplayMiss {
  method: string;
  path: string;
  model?: string;
  /** Readable account of how the request differs from the closest recorded one. */
  diff: string;
}

/**
 * Token counts follow the OpenAI convention: `inputTokens` includes cache reads and writes,
 * `outputTokens` includes reasoning tokens.
 */
export interface SessionUsage extends Usage {
  /** Sum over model requests of time to last byte (recorded latency when replaying). */
  latencyMs: number;
  /** Set when a request was refused because this limit was reached. */
  budgetExceeded?: BudgetLimit;
  /** Successful responses whose usage could not be read; when > 0 the token counts are a floor. */
  unmeteredResponses: number;
  replayMisses: ReplayMiss[];
  /** Replayed requests that matched a recording only with tool output ignored (see withoutToolOutputs). */
  replayLooseMatches: number;
  /** Requests the gateway refused instead of forwarding: how many, per reason, and the first distinct messages. */
  refused?: { requests: number; reasons: Partial<Record<RefusalReason, number>>; examples: string[] };
  /** Per model named by a response, how many responses it answered. */
  models?: Record<string, number>;
  /** Side requests forwarded (model listings, token counts): they count against `maxRequests`, not in `requests`. */
  sideRequests?: number;
}

export interface Gateway {
  url: string;
  socketPath?: string;
  openSession(attemptId: string, options?: SessionOptions): Session;
  /** Still answers after closeSession. */
  usage(attemptId: string): SessionUsage;
  /** Which of the session's model requests failed at the provider; still answers after closeSession. */
  provider(attemptId: string): ProviderHealth;
  /** The session's metered model turns in arrival order; still answers after closeSession. */
  turns(attemptId: string): ModelTurn[];
  /** Further requests with the session's token are refused; records are flushed. */
  closeSession(attemptId: string): void;
  close(): Promise<void>;
}
