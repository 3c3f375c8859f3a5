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

const UPSTREAM_KINDS: readonly UpstreamKind[] = ['openai', 'anthropic', 'gemini'];
const UPSTREAM_NAME = /^[a-z0-9][a-z0-9_-]*$/;

export function resolveUpstreams(configured: Record<string, UpstreamConfig> = {}): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  for (const [name, config] of Object.entries({ ...DEFAULT_UPSTREAMS, ...configured })) {
    if (!UPSTREAM_NAME.test(name)) throw new Error(`gateway upstream "${name}": name must match ${UPSTREAM_NAME}`);
    if (!UPSTREAM_KINDS.includes(config.kind)) {
      throw new Error(`gateway upstream "${name}": kind must be "openai", "anthropic" or "gemini"`);
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

/**
 * The base URL an agent is given: what that provider's SDK expects. OpenAI's includes /v1;
 * Anthropic's and Gemini's do not (their SDKs add `/v1/messages`, `/v1beta/models/...`).
 */
export function agentBaseUrl(gatewayUrl: string, token: string, upstream: Upstream): string {
  const root = `${gatewayUrl}/s/${token}/${upstream.name}`;
  return upstream.kind === 'openai' ? `${root}/v1` : root;
}

/**
 * Where a client path goes upstream. OpenAI-kind base URLs carry their own version segment
 * (groq's `/openai/v1`, Gemini's `/v1beta/openai`), so the client's `/v1` is replaced by it;
 * Anthropic and Gemini clients send the version themselves.
 */
export function upstreamUrl(upstream: Upstream, clientPath: string): string | undefined {
  if (upstream.kind !== 'openai') return upstream.baseUrl + clientPath;
  const match = /^\/v1(?=[/?]|$)/.exec(clientPath);
  return match ? upstream.baseUrl + clientPath.slice(match[0].length) : undefined;
}

/** `/v1beta/models/gemini-2.5-pro:streamGenerateContent`: the model and whether it streams. */
const GEMINI_GENERATE = /^\/v1(?:alpha|beta)?\/models\/([^/:?]+):(generateContent|streamGenerateContent)$/;

export function geminiCall(clientPath: string): { model: string; stream: boolean } | undefined {
  const match = GEMINI_GENERATE.exec(clientPath.split('?')[0] ?? '');
  if (!match) return undefined;
  return { model: decodeURIComponent(match[1] as string), stream: match[2] === 'streamGenerateContent' };
}

export function apiOf(kind: UpstreamKind, method: string, clientPath: string): Api {
  if (method !== 'POST') return 'other';
  const pathname = clientPath.split('?')[0];
  if (kind === 'anthropic') return pathname === '/v1/messages' ? 'messages' : 'other';
  if (kind === 'gemini') return geminiCall(clientPath) ? 'gemini' : 'other';
  if (pathname === '/v1/chat/completions') return 'chat';
  if (pathname === '/v1/responses') return 'responses';
  return 'other';
}

/**
 * Gemini clients may send their key as `?key=`; it is a dummy, must not reach the upstream (the
 * real key goes in a header) and must not be recorded or hashed, so it is taken out of the path.
 */
export function withoutKeyParam(kind: UpstreamKind, clientPath: string): string {
  const at = clientPath.indexOf('?');
  if (kind !== 'gemini' || at === -1) return clientPath;
  const params = new URLSearchParams(clientPath.slice(at + 1));
  if (!params.has('key')) return clientPath;
  params.delete('key');
  const query = params.toString();
  return clientPath.slice(0, at) + (query ? `?${query}` : '');
}

const AUTH_HEADER: Record<UpstreamKind, (key: string) => Record<string, string>> = {
  openai: (key) => ({ authorization: `Bearer ${key}` }),
  anthropic: (key) => ({ 'x-api-key': key }),
  gemini: (key) => ({ 'x-goog-api-key': key }),
};

export type AuthResult = { ok: true; headers: Record<string, string> } | { ok: false; missingEnv: string };

/** The real key, read at forward time so a rotated key is picked up and nothing caches it. */
export function upstreamAuth(upstream: Upstream, env: Readonly<Record<string, string | undefined>>): AuthResult {
  if (upstream.apiKeyEnv === undefined) return { ok: true, headers: {} };
  const key = env[upstream.apiKeyEnv];
  if (!key) return { ok: false, missingEnv: upstream.apiKeyEnv };
  return { ok: true, headers: AUTH_HEADER[upstream.kind](key) };
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
