import type { UpstreamKind } from './types.js';
import type { Api } from './usage-readers.js';
import { apiOf, bedrockCall, geminiCall, vertexAnthropicCall } from './upstreams.js';

/**
 * Side requests: what agents send besides model calls, forwarded and counted but carrying no
 * tokens (a model listing, a token count). Every other route is refused and never forwarded: a
 * route the gateway does not know is a route it cannot meter.
 */
export type SideRoute = 'models' | 'count_tokens';

export interface AllowedRoute {
  /** `other` for side requests. */
  api: Api;
  side?: SideRoute;
  /** The model a Gemini, Vertex or Bedrock path names (`/v1beta/models/<model>:…`, `/model/<id>/converse`, `…/publishers/anthropic/models/<model>:rawPredict`). */
  pathModel?: string;
}

const OPENAI_MODELS = /^\/v1\/models(\/[A-Za-z0-9._:@~-]+)?$/;
const GEMINI_MODELS = /^\/v1(?:alpha|beta)?\/models(\/[A-Za-z0-9._~-]+)?$/;
const GEMINI_COUNT = /^\/v1(?:alpha|beta)?\/models\/([A-Za-z0-9._~-]+):countTokens$/;

/** Undefined when the gateway does not forward this method and path for this kind of upstream. */
export function allowedRoute(kind: UpstreamKind, method: string, pathWithQuery: string): AllowedRoute | undefined {
  const api = apiOf(kind, method, pathWithQuery);
  const pathname = pathWithQuery.split('?')[0] ?? '';
  if (api === 'gemini') {
    const model = geminiCall(pathWithQuery)?.model;
    return { api, ...(model !== undefined ? { pathModel: model } : {}) };
  }
  // Bedrock's and Vertex's Claude calls name the model in the path only.
  const pathModel = kind === 'bedrock' ? bedrockCall(pathWithQuery)?.model : kind === 'vertex' ? vertexAnthropicCall(pathWithQuery)?.model : undefined;
  if (pathModel !== undefined && api !== 'other') return { api, pathModel };
  if (api !== 'other') return { api };
  // Bedrock and Vertex clients list no models through the runtime endpoint.
  const listing = kind === 'gemini' ? GEMINI_MODELS : kind === 'openai' || kind === 'anthropic' ? OPENAI_MODELS : undefined;
  if (method === 'GET' && listing?.test(pathname)) return { api, side: 'models' };
  if (method === 'POST' && kind === 'anthropic' && pathname === '/v1/messages/count_tokens') return { api, side: 'count_tokens' };
  const count = method === 'POST' && kind === 'gemini' ? GEMINI_COUNT.exec(pathname) : null;
  if (count) return { api, side: 'count_tokens', pathModel: count[1] as string };
  return undefined;
}
