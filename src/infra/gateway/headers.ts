import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

export type HeaderMap = Record<string, string | string[]>;

/** Per-connection headers (RFC 9110 §7.6.1): never forwarded across a proxy. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** Credentials in either direction: the client's are dummies, the gateway's must not leak. */
const CREDENTIALS = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'set-cookie',
  // AWS temporary credentials; a client's own signature headers are replaced by the gateway's.
  'x-amz-security-token',
  'x-amz-date',
  'x-amz-content-sha256',
]);

/** Identify the account behind the key; a client's values are dummies and recordings must not carry them. */
const ACCOUNT = new Set(['openai-organization', 'openai-project', 'anthropic-organization-id']);

/** The body is re-framed by Node on each hop, and we ask upstreams for identity encoding. */
const FRAMING = new Set(['content-length', 'content-encoding']);

function copyWithout(headers: IncomingHttpHeaders, drop: (name: string) => boolean): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || drop(name)) continue;
    out[name] = value;
  }
  return out;
}

export function upstreamRequestHeaders(client: IncomingHttpHeaders, auth: Record<string, string>): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = copyWithout(
    client,
    (name) =>
      HOP_BY_HOP.has(name) ||
      CREDENTIALS.has(name) ||
      ACCOUNT.has(name) ||
      name === 'host' ||
      name === 'content-length' ||
      name === 'accept-encoding' ||
      name === 'expect',
  );
  // Plain bytes, so usage can be read without decompressing.
  headers['accept-encoding'] = 'identity';
  return { ...headers, ...auth };
}

/** What the client gets back from an upstream response. */
export function clientResponseHeaders(upstream: IncomingHttpHeaders | HeaderMap): HeaderMap {
  return copyWithout(upstream, (name) => HOP_BY_HOP.has(name) || CREDENTIALS.has(name) || FRAMING.has(name));
}

/** What a cassette keeps: the client's view minus anything naming the account. */
export function recordableHeaders(headers: HeaderMap): HeaderMap {
  return copyWithout(headers, (name) => ACCOUNT.has(name));
}
