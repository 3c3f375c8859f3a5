import { googleAccessToken } from './google-token.js';
import { awsCredentialsFrom, signV4 } from './sigv4.js';
import type { Api } from './usage-readers.js';
import type { UpstreamAuth, UpstreamConfig, UpstreamKind } from './types.js';

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
  auth?: UpstreamAuth;
}

const UPSTREAM_KINDS: readonly UpstreamKind[] = ['openai', 'anthropic', 'gemini', 'bedrock', 'vertex'];
const UPSTREAM_NAME = /^[a-z0-9][a-z0-9_-]*$/;

export function resolveUpstreams(configured: Record<string, UpstreamConfig> = {}): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  const merged: Record<string, UpstreamConfig> = { ...DEFAULT_UPSTREAMS, ...configured };
  for (const [name, config] of Object.entries(merged)) {
    if (!UPSTREAM_NAME.test(name)) throw new Error(`gateway upstream "${name}": name must match ${UPSTREAM_NAME}`);
    if (!UPSTREAM_KINDS.includes(config.kind)) {
      throw new Error(`gateway upstream "${name}": kind must be one of ${UPSTREAM_KINDS.map((k) => `"${k}"`).join(', ')}`);
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
      ...(config.auth ? { auth: config.auth } : {}),
    });
  }
  return upstreams;
}

/**
 * The base URL an agent is given: what that provider's SDK expects. OpenAI's includes /v1;
 * Anthropic's and Gemini's do not (their SDKs add `/v1/messages`, `/v1beta/models/...`); Bedrock's
 * is the runtime endpoint (`/model/<id>/converse` follows) and Vertex's the project's location
 * (`/publishers/google/models/<model>:generateContent` follows).
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
  const claudeOnVertex = upstream.kind === 'vertex' ? vertexAnthropicCall(clientPath) : undefined;
  if (claudeOnVertex) return upstream.baseUrl + claudeOnVertex.path + clientPath.slice(clientPath.split('?')[0]?.length ?? 0);
  if (upstream.kind !== 'openai') return upstream.baseUrl + clientPath;
  const match = /^\/v1(?=[/?]|$)/.exec(clientPath);
  return match ? upstream.baseUrl + clientPath.slice(match[0].length) : undefined;
}

/**
 * `/v1beta/models/gemini-2.5-pro:streamGenerateContent` (Gemini API) or
 * `/publishers/google/models/gemini-2.5-pro:generateContent` (Vertex AI, below the project's
 * location): the model and whether it streams.
 */
const GEMINI_GENERATE = /^(?:\/v1(?:alpha|beta)?|\/publishers\/google)\/models\/([^/:?]+):(generateContent|streamGenerateContent)$/;

export function geminiCall(clientPath: string): { model: string; stream: boolean } | undefined {
  const match = GEMINI_GENERATE.exec(clientPath.split('?')[0] ?? '');
  if (!match) return undefined;
  return { model: decodeURIComponent(match[1] as string), stream: match[2] === 'streamGenerateContent' };
}

/**
 * Bedrock Runtime's model calls, the model id percent-encoded as the SDKs send it
 * (`us.anthropic.claude-sonnet-4-5-20250929-v1%3A0`): `converse` and `converse-stream` (the
 * Converse API), and `invoke` and `invoke-with-response-stream` for Claude models, whose body and
 * events are Anthropic's Messages API (what Claude Code sends on Bedrock). Other models' invoke
 * bodies are each model's own format, which the gateway cannot meter, so they are not routes.
 * Streams come back as AWS event-stream frames (event-stream.ts).
 */
const BEDROCK_CALL = /^\/model\/([^/?]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;
const CLAUDE_ON_BEDROCK = /(^|[./:])anthropic\.claude/;

export function bedrockCall(clientPath: string): { model: string; api: 'converse' | 'messages'; stream: boolean } | undefined {
  const match = BEDROCK_CALL.exec(clientPath.split('?')[0] ?? '');
  if (!match) return undefined;
  let model: string;
  try {
    model = decodeURIComponent(match[1] as string);
  } catch {
    return undefined;
  }
  const operation = match[2] as string;
  const stream = operation.endsWith('-stream');
  if (operation.startsWith('converse')) return { model, api: 'converse', stream };
  return CLAUDE_ON_BEDROCK.test(model) ? { model, api: 'messages', stream } : undefined;
}

/**
 * Claude on Vertex AI (`@anthropic-ai/vertex-sdk`, Claude Code with CLAUDE_CODE_USE_VERTEX):
 * `/projects/<p>/locations/<l>/publishers/anthropic/models/<model>:rawPredict` or
 * `:streamRawPredict`, an Anthropic Messages body and answer. The project and location the agent
 * names are not trusted: the upstream's own (from GOOGLE_VERTEX_PROJECT and
 * GOOGLE_VERTEX_LOCATION) replace them.
 */
const VERTEX_ANTHROPIC = /^(?:\/projects\/[^/?]+\/locations\/[^/?]+)?(\/publishers\/anthropic\/models\/([^/:?]+):(rawPredict|streamRawPredict))$/;

export function vertexAnthropicCall(clientPath: string): { model: string; stream: boolean; path: string } | undefined {
  const match = VERTEX_ANTHROPIC.exec(clientPath.split('?')[0] ?? '');
  if (!match) return undefined;
  try {
    return { model: decodeURIComponent(match[2] as string), stream: match[3] === 'streamRawPredict', path: match[1] as string };
  } catch {
    return undefined;
  }
}

export function apiOf(kind: UpstreamKind, method: string, clientPath: string): Api {
  if (method !== 'POST') return 'other';
  const pathname = clientPath.split('?')[0] ?? '';
  if (kind === 'anthropic') return pathname === '/v1/messages' ? 'messages' : 'other';
  if (kind === 'bedrock') return bedrockCall(pathname)?.api ?? 'other';
  if (kind === 'vertex' && vertexAnthropicCall(pathname)) return 'messages';
  if (kind === 'gemini' || kind === 'vertex') {
    const vertexPath = pathname.startsWith('/publishers/');
    return geminiCall(clientPath) && vertexPath === (kind === 'vertex') ? 'gemini' : 'other';
  }
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
  if ((kind !== 'gemini' && kind !== 'vertex') || at === -1) return clientPath;
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
  // A Bedrock API key (AWS_BEARER_TOKEN_BEDROCK); without one, requests are signed (aws-sigv4).
  bedrock: (key) => ({ authorization: `Bearer ${key}` }),
  vertex: (key) => ({ authorization: `Bearer ${key}` }),
};

/** What a signer needs of the request as it is forwarded. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

export type AuthResult =
  { ok: true; headers: Record<string, string>; sign?: (request: OutgoingRequest) => Record<string, string> } | { ok: false; message: string };

type Env = Readonly<Record<string, string | undefined>>;

/** The real credentials, read at forward time so a rotated key is picked up and nothing caches it (Google's token cache aside). */
export async function upstreamAuth(upstream: Upstream, env: Env): Promise<AuthResult> {
  const auth = upstream.auth;
  if (auth?.scheme === 'aws-sigv4') {
    const read = awsCredentialsFrom(env);
    if (!read.ok) return { ok: false, message: `environment variable ${read.missingEnv} is not set` };
    const { region, service } = auth;
    return { ok: true, headers: {}, sign: (request) => signV4({ ...request, region, service, credentials: read.credentials }) };
  }
  if (auth?.scheme === 'google-adc') {
    try {
      return { ok: true, headers: { authorization: `Bearer ${await googleAccessToken(env)}` } };
    } catch (error) {
      return { ok: false, message: `no Google access token from Application Default Credentials: ${(error as Error).message}` };
    }
  }
  if (upstream.apiKeyEnv === undefined) return { ok: true, headers: {} };
  const key = env[upstream.apiKeyEnv];
  if (!key) return { ok: false, message: `environment variable ${upstream.apiKeyEnv} is not set` };
  return { ok: true, headers: auth?.scheme === 'api-key' ? { 'api-key': key } : AUTH_HEADER[upstream.kind](key) };
}

/** The variables an upstream's credentials are read from. */
function credentialVariables(upstream: Upstream): string[] {
  const names = upstream.apiKeyEnv === undefined ? [] : [upstream.apiKeyEnv];
  if (upstream.auth?.scheme === 'aws-sigv4') names.push('AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN');
  return names;
}

/** Key values that must never reach a recording. */
export function secretValues(upstreams: Iterable<Upstream>, env: Env): string[] {
  const values = new Set<string>();
  for (const upstream of upstreams) {
    for (const name of credentialVariables(upstream)) {
      const value = env[name];
      if (value && value.length >= 8) values.add(value);
    }
  }
  return [...values];
}
