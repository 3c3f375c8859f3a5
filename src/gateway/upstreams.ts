import type { Api } from './usage-readers.js';
import type { UpstreamConfig, UpstreamKind } from './types.js';

export const DEFAULT_UPSTREAMS = {
  openai: { kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
  anthropic: { kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKeyEnv: 'ANTHROPIC_API_KEY' },
} as const satisfies Record<string, UpstreamConfig>;

export interface Upstream {
  name: string;
  kind: UpstreamKind;
  /** Without a trailing slash. */
  baseUrl: string;
  apiKeyEnv?: string;
}

const UPSTREAM_NAME = /^[a-z0-9][a-z0-9_-]*$/;

export function resolveUpstreams(configured: Record<string, UpstreamConfig> = {}): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  for (const [name, config] of Object.entries({ ...DEFAULT_UPSTREAMS, ...configured })) {
    if (!UPSTREAM_NAME.test(name)) throw new Error(`gateway upstream "${name}": name must match ${UPSTREAM_NAME}`);
    if (config.kind !== 'openai' && config.kind !== 'anthropic') {
      throw new Error(`gateway upstream "${name}": kind must be "openai" or "anthropic"`);
    }
    let url: URL;
    try {
      url = new URL(config.baseUrl);
    } catch {
      throw new Error(`gateway upstream "${name}": baseUrl "${config.baseUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(`gateway upstream "${name}": baseUrl must be http(s)`);
    }
    upstreams.set(name, {
      name,
      kind: config.kind,
      baseUrl: config.baseUrl.replace(/\/+$/, ''),
      ...(config.apiKeyEnv ? { apiKeyEnv: config.apiKeyEnv } : {}),
    });
  }
  return upstreams;
}

/** The base URL an agent is given: what that provider's SDK expects (OpenAI's includes /v1). */
export function agentBaseUrl(gatewayUrl: string, token: string, upstream: Upstream): string {
  const root = `${gatewayUrl}/s/${token}/${upstream.name}`;
  return upstream.kind === 'openai' ? `${root}/v1` : root;
}

/**
 * Where a client path goes upstream. OpenAI-kind base URLs carry their own version segment
 * (groq's `/openai/v1`, Gemini's `/v1beta/openai`), so the client's `/v1` is replaced by it.
 */
export function upstreamUrl(upstream: Upstream, clientPath: string): string | undefined {
  if (upstream.kind === 'anthropic') return upstream.baseUrl + clientPath;
  const match = /^\/v1(?=[/?]|$)/.exec(clientPath);
  return match ? upstream.baseUrl + clientPath.slice(match[0].length) : undefined;
}

export function apiOf(kind: UpstreamKind, method: string, clientPath: string): Api {
  if (method !== 'POST') return 'other';
  const pathname = clientPath.split('?')[0];
  if (kind === 'anthropic') return pathname === '/v1/messages' ? 'messages' : 'other';
  if (pathname === '/v1/chat/completions') return 'chat';
  if (pathname === '/v1/responses') return 'responses';
  return 'other';
}

export type AuthResult = { ok: true; headers: Record<string, string> } | { ok: false; missingEnv: string };

/** The real key, read at forward time so a rotated key is picked up and nothing caches it. */
export function upstreamAuth(upstream: Upstream, env: Readonly<Record<string, string | undefined>>): AuthResult {
  if (upstream.apiKeyEnv === undefined) return { ok: true, headers: {} };
  const key = env[upstream.apiKeyEnv];
  if (!key) return { ok: false, missingEnv: upstream.apiKeyEnv };
  return {
    ok: true,
    headers: upstream.kind === 'anthropic' ? { 'x-api-key': key } : { authorization: `Bearer ${key}` },
  };
}

/** Key values that must never reach a recording. */
export function secretValues(upstreams: Iterable<Upstream>, env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const upstream of upstreams) {
    const value = upstream.apiKeyEnv === undefined ? undefined : env[upstream.apiKeyEnv];
    if (value && value.length >= 8) values.add(value);
  }
  return [...values];
}
