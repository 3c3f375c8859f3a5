import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 for one request, as the gateway sends it upstream (Bedrock Runtime). The
 * agent holds no AWS credentials: it sends a dummy bearer key, the gateway drops it and signs the
 * exact URL, method and body it forwards. Signed: host, x-amz-date, x-amz-content-sha256,
 * content-type and x-amz-security-token (temporary credentials); other headers travel unsigned,
 * which AWS allows.
 */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SigningInput {
  method: string;
  url: URL;
  /** Lowercase names; what is forwarded besides the signature headers. */
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
  region: string;
  service: string;
  credentials: AwsCredentials;
  now?: Date;
}

/** The headers to add to the request: authorization, x-amz-date, x-amz-content-sha256, and the token when there is one. */
export function signV4(input: SigningInput): Record<string, string> {
  const { method, url, body, region, service, credentials } = input;
  const amzDate = (input.now ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(body);
  const added: Record<string, string> = { 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
  if (credentials.sessionToken) added['x-amz-security-token'] = credentials.sessionToken;
  const signed: Record<string, string> = { host: url.host, ...added };
  const contentType = input.headers['content-type'];
  if (typeof contentType === 'string') signed['content-type'] = contentType;
  const names = Object.keys(signed).sort();
  const canonicalHeaders = names.map((name) => `${name}:${(signed[name] as string).trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [method, canonicalUri(url.pathname), canonicalQuery(url.searchParams), canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(Buffer.from(canonicalRequest))].join('\n');
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    ...added,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

/** AWS credentials from the variables AWS SDKs read; undefined (with the missing one) when incomplete. */
export function awsCredentialsFrom(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; credentials: AwsCredentials } | { ok: false; missingEnv: string } {
  const accessKeyId = env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
  if (!accessKeyId) return { ok: false, missingEnv: 'AWS_ACCESS_KEY_ID' };
  if (!secretAccessKey) return { ok: false, missingEnv: 'AWS_SECRET_ACCESS_KEY' };
  const sessionToken = env['AWS_SESSION_TOKEN'];
  return { ok: true, credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } };
}

function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** RFC 3986 encoding, which encodeURIComponent leaves short of (`!'()*`). */
function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Every service but S3 signs the path encoded once more: the model id `us.anthropic.claude…-v1:0`
 * travels as `…-v1%3A0` and is signed as `…-v1%253A0`.
 */
function canonicalUri(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => rfc3986(segment))
    .join('/');
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params.entries()]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}
