import type { HeaderMap } from './headers.js';
import type { UpstreamKind } from './types.js';

/** A response the gateway answers itself, without an upstream. */
export interface GatewayReply {
  status: number;
  headers: HeaderMap;
  body: string;
}

export type GatewayErrorKind =
  | 'budget_exceeded'
  | 'replay_miss'
  | 'unknown_session'
  | 'missing_api_key'
  | 'model_not_priced'
  | 'request_too_large'
  | 'not_found'
  | 'bad_path'
  | 'route_not_allowed'
  | 'model_not_allowed'
  | 'upstream_unreachable'
  | 'gateway_failure';

interface Shape {
  status: number;
  openaiType: string;
  anthropicType: string;
  /** google.rpc.Code name, as Gemini's `error.status`. */
  geminiStatus: string;
}

/**
 * Statuses are chosen for what clients do with them. The AI SDK retries 408/409/429/5xx, and the
 * OpenAI and Anthropic SDKs (hence Codex and Claude Code) retry the same set, so anything the
 * agent must not retry uses a 4xx outside it: a spent budget is 402 (`insufficient_quota` /
 * `billing_error`, the providers' own words for "out of money"), a replay miss is 400. Gemini CLI
 * retries 429, 499 and 5xx, so the same statuses hold for Gemini clients.
 */
const SHAPES: Record<GatewayErrorKind, Shape> = {
  budget_exceeded: { status: 402, openaiType: 'insufficient_quota', anthropicType: 'billing_error', geminiStatus: 'RESOURCE_EXHAUSTED' },
  replay_miss: { status: 400, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', geminiStatus: 'INVALID_ARGUMENT' },
  unknown_session: { status: 401, openaiType: 'invalid_request_error', anthropicType: 'authentication_error', geminiStatus: 'UNAUTHENTICATED' },
  missing_api_key: { status: 401, openaiType: 'invalid_request_error', anthropicType: 'authentication_error', geminiStatus: 'UNAUTHENTICATED' },
  model_not_priced: { status: 400, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', geminiStatus: 'INVALID_ARGUMENT' },
  request_too_large: { status: 413, openaiType: 'invalid_request_error', anthropicType: 'request_too_large', geminiStatus: 'INVALID_ARGUMENT' },
  bad_path: { status: 400, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', geminiStatus: 'INVALID_ARGUMENT' },
  route_not_allowed: { status: 404, openaiType: 'invalid_request_error', anthropicType: 'not_found_error', geminiStatus: 'NOT_FOUND' },
  model_not_allowed: { status: 400, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', geminiStatus: 'INVALID_ARGUMENT' },
  not_found: { status: 404, openaiType: 'invalid_request_error', anthropicType: 'not_found_error', geminiStatus: 'NOT_FOUND' },
  // Transient by nature, so this one is left retryable.
  upstream_unreachable: { status: 502, openaiType: 'server_error', anthropicType: 'api_error', geminiStatus: 'UNAVAILABLE' },
  gateway_failure: { status: 500, openaiType: 'server_error', anthropicType: 'api_error', geminiStatus: 'INTERNAL' },
};

export function gatewayError(kind: UpstreamKind, error: GatewayErrorKind, message: string): GatewayReply {
  const shape = SHAPES[error];
  const text = `crucible gateway: ${message}`;
  const body =
    kind === 'anthropic'
      ? { type: 'error', error: { type: shape.anthropicType, message: text } }
      : kind === 'gemini' || kind === 'vertex'
        ? { error: { code: shape.status, message: text, status: shape.geminiStatus } }
        : kind === 'bedrock'
          ? { message: text }
          : { error: { message: text, type: shape.openaiType, param: null, code: error } };
  const headers: HeaderMap = { 'content-type': 'application/json', 'x-crucible-gateway-error': error };
  // Honoured by the Stainless-generated OpenAI and Anthropic SDKs.
  if (shape.status < 500) headers['x-should-retry'] = 'false';
  return { status: shape.status, headers, body: JSON.stringify(body) };
}
