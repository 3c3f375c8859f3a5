import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateText, streamText } from 'ai';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { AwsV4Signer } from 'aws4fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLanguageModel } from '../../src/domain/agents/builtin/model.js';
import { TOOL_DEFINITIONS } from '../../src/domain/agents/builtin/tools.js';
import { parseModelSpec, upstreamFor, type ProviderName } from '../../src/domain/agents/models/providers.js';
import { EventStreamDecoder } from '../../src/infra/gateway/event-stream.js';
import { loadPricing, startGateway, type Gateway, type GatewayMode } from '../../src/infra/gateway/index.js';
import { frame } from '../gateway/event-stream-frames.js';
import { useTempDirs } from '../helpers/tmp.js';
import { ANSWERING_MODEL, PLATFORM_USAGE, startPlatformServer, type Platform, type PlatformRequest, type PlatformServer } from './platform-server.js';

const pricing = loadPricing();
const tempDir = useTempDirs();
const DUMMY = 'dummy-key-the-agent-holds';

const AWS = {
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2VjEXAMPLE-session-token-0123456789',
  AWS_REGION: 'eu-west-1',
};

interface Setup {
  server: PlatformServer;
  gateway: Gateway;
  cassetteDir: string;
  run(prompt?: string): Promise<{ id: string; toolCalls: Array<[string, string, unknown]>; sdkInput: number | undefined }>;
  close(): Promise<void>;
}

/** A platform server, a gateway in front of it configured as `--model provider:model` would, and one generateText call through it. */
async function setUp(
  provider: ProviderName,
  platform: Platform,
  model: string,
  env: Record<string, string>,
  baseUrl: (server: PlatformServer) => string,
  mode: GatewayMode = 'record',
): Promise<Setup> {
  const server = await startPlatformServer(platform);
  const spec = parseModelSpec(`${provider}:${model}`);
  const fullEnv = env;
  const upstream = upstreamFor(provider, { env: fullEnv, baseUrl: baseUrl(server), replay: false, spec: spec.spec });
  const cassetteDir = tempDir();
  const gateway = await startGateway({ upstreams: { [provider]: upstream.config }, env: fullEnv, pricing, mode, cassetteDir });
  let n = 0;
  return {
    server,
    gateway,
    cassetteDir,
    async run(prompt = 'Fix it.') {
      const id = `attempt-${++n}`;
      const { baseUrls } = gateway.openSession(id, { model: spec.modelId, cassette: `task/${provider}/${n}` });
      const result = await generateText({
        model: await createLanguageModel(spec, { baseUrls, apiKey: DUMMY }),
        prompt,
        tools: TOOL_DEFINITIONS,
        maxRetries: 0,
      });
      gateway.closeSession(id);
      return { id, toolCalls: result.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input]), sdkInput: result.usage.inputTokens };
    },
    async close() {
      await gateway.close();
      await server.close();
    },
  };
}

/** Everything the gateway wrote to disk for the run: cassettes, as one text. */
function recorded(dir: string): string {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  expect(files.length).toBeGreaterThan(0);
  return files.map((f) => readFileSync(join(f.parentPath, f.name), 'utf8')).join('\n');
}

/** A decoded message framed again, for AWS's codec to read (a check of the bytes, not of our reader). */
function frameOf(message: { headers: Record<string, unknown>; payload: Uint8Array }): Uint8Array {
  const headers = Object.fromEntries(Object.entries(message.headers).map(([name, value]) => [name, String(value)]));
  return frame(headers, message.payload);
}

function headerText(request: PlatformRequest): string {
  return JSON.stringify(request.headers);
}

/** Uncached + cache reads + cache writes, as the gateway normalises input. */
function totalInput(platform: Platform): number {
  const u = PLATFORM_USAGE[platform];
  return u.uncached + u.cacheRead + u.cacheWrite;
}

function expectMetered(gateway: Gateway, id: string, platform: Platform, costUsd: number): void {
  const u = PLATFORM_USAGE[platform];
  const usage = gateway.usage(id);
  expect(usage).toMatchObject({
    requests: 1,
    inputTokens: totalInput(platform),
    cacheReadTokens: u.cacheRead,
    cacheWriteTokens: u.cacheWrite,
    outputTokens: u.output,
    unmeteredResponses: 0,
  });
  expect(usage.costUsd).toBeCloseTo(costUsd, 9);
}

/** USD for the usage at per-million rates. */
function cost(platform: Platform, rates: { input: number; output: number; cacheRead: number; cacheWrite?: number }): number {
  const u = PLATFORM_USAGE[platform];
  return (u.uncached * rates.input + u.cacheRead * rates.cacheRead + u.cacheWrite * (rates.cacheWrite ?? 0) + u.output * rates.output) / 1_000_000;
}

describe('AWS Bedrock (Converse) through the gateway', () => {
  const model = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';

  describe('signed with SigV4 from the AWS access key variables', () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setUp('bedrock', 'bedrock', model, AWS, (server) => server.url);
    });
    afterAll(() => s.close());

    it('sends the Converse request the package builds, signed with the real credentials; meters and prices its usage', async () => {
      const { id, toolCalls, sdkInput } = await s.run();
      expect(toolCalls).toEqual([['call_1', 'read_file', { path: 'src/a.py' }]]);
      expect(sdkInput).toBe(totalInput('bedrock'));
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.method).toBe('POST');
      expect(sent.path).toBe(`/model/${encodeURIComponent(model)}/converse`);
      const body = JSON.parse(sent.body.toString('utf8')) as Record<string, unknown>;
      expect(body).toHaveProperty('messages');
      expect(body).toHaveProperty('toolConfig');

      // The signature is AWS's: recomputed here by another implementation (aws4fetch) over the request as received.
      const authorization = String(sent.headers.authorization);
      const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
      expect(parsed, authorization).not.toBeNull();
      const [, keyId, , region, service, signedHeaders, signature] = parsed as unknown as string[];
      expect([keyId, region, service]).toEqual([AWS.AWS_ACCESS_KEY_ID, 'eu-west-1', 'bedrock']);
      expect(sent.headers['x-amz-security-token']).toBe(AWS.AWS_SESSION_TOKEN);
      const names = (signedHeaders as string).split(';');
      expect(names).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token', 'content-type']));
      const headers = Object.fromEntries(names.filter((n) => n !== 'host').map((n) => [n, String(sent.headers[n])]));
      const expected = new AwsV4Signer({
        method: 'POST',
        url: `${s.server.url}${sent.path}`,
        headers,
        body: sent.body.toString('utf8'),
        accessKeyId: AWS.AWS_ACCESS_KEY_ID,
        secretAccessKey: AWS.AWS_SECRET_ACCESS_KEY,
        sessionToken: AWS.AWS_SESSION_TOKEN,
        service: 'bedrock',
        region: 'eu-west-1',
        datetime: String(sent.headers['x-amz-date']),
        // Exactly the headers the request says it signed (aws4fetch leaves content-type out by default).
        allHeaders: true,
      });
      expect(await expected.signature()).toBe(signature);
      expect(headerText(sent)).not.toContain(DUMMY);

      expectMetered(s.gateway, id, 'bedrock', cost('bedrock', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }));
      expect(s.gateway.turns(id)).toMatchObject([
        { api: 'converse', requestedModel: model, toolCalls: [{ id: 'call_1', name: 'read_file' }], finishReason: 'tool_use' },
      ]);
      // Neither the credentials nor the signature reach the recording.
      const written = recorded(s.cassetteDir);
      for (const secret of [AWS.AWS_SECRET_ACCESS_KEY, AWS.AWS_SESSION_TOKEN, AWS.AWS_ACCESS_KEY_ID, signature as string, DUMMY])
        expect(written).not.toContain(secret);
    });

    it('meters the event stream (converse-stream) the package reads, frame by frame, and passes its bytes unchanged', async () => {
      const { baseUrls } = s.gateway.openSession('stream', { model, cassette: 'task/stream/1' });
      const result = streamText({
        model: await createLanguageModel(parseModelSpec(`bedrock:${model}`), { baseUrls, apiKey: DUMMY }),
        prompt: 'Fix it.',
        tools: TOOL_DEFINITIONS,
        maxRetries: 0,
      });
      // The package decodes AWS's framing itself: a byte changed on the way would fail its CRC check.
      expect((await result.toolCalls).map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([['call_1', 'read_file', { path: 'src/a.py' }]]);
      expect(await result.text).toBe('On it.');
      expect((await result.usage).inputTokens).toBe(totalInput('bedrock'));
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.path).toBe(`/model/${encodeURIComponent(model)}/converse-stream`);
      expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\//);
      expectMetered(s.gateway, 'stream', 'bedrock', cost('bedrock', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }));
      expect(s.gateway.turns('stream')).toMatchObject([
        {
          api: 'converse',
          requestedModel: model,
          text: 'On it.',
          toolCalls: [{ id: 'call_1', name: 'read_file', input: { path: 'src/a.py' } }],
          finishReason: 'tool_use',
        },
      ]);
      expect(s.gateway.provider('stream')).toMatchObject({ requests: 1, answered: 1, failed: 0 });
    });

    it("meters Claude Code's call on Bedrock (invoke-with-response-stream, Anthropic events in event-stream frames)", async () => {
      const { baseUrls } = s.gateway.openSession('invoke', { model, cassette: 'task/invoke/1' });
      const response = await fetch(`${baseUrls.bedrock}/model/${encodeURIComponent(model)}/invoke-with-response-stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' },
        body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 1024, messages: [{ role: 'user', content: 'Fix it.' }] }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
      const bytes = new Uint8Array(await response.arrayBuffer());
      // What the client got decodes with AWS's own codec into the nine events the platform sent.
      const codec = new EventStreamCodec(toUtf8, fromUtf8);
      const events: unknown[] = [];
      const decoder = new EventStreamDecoder();
      for (const message of decoder.push(bytes)) events.push(codec.decode(frameOf(message)).headers[':event-type']?.value);
      expect(events).toEqual(Array(9).fill('chunk'));
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.path).toBe(`/model/${encodeURIComponent(model)}/invoke-with-response-stream`);
      expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
      expectMetered(s.gateway, 'invoke', 'bedrock', cost('bedrock', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }));
      expect(s.gateway.turns('invoke')).toMatchObject([
        { api: 'messages', text: 'On it.', toolCalls: [{ id: 'call_1', name: 'read_file' }], finishReason: 'tool_use' },
      ]);
    });

    it("refuses invoke for a model whose body is not Anthropic's (it could not be metered)", async () => {
      const before = s.server.received.length;
      const { baseUrls } = s.gateway.openSession('llama', { otherModels: 'serve', cassette: 'task/llama/1' });
      const response = await fetch(`${baseUrls.bedrock}/model/meta.llama3-70b-instruct-v1%3A0/invoke`, { method: 'POST', body: '{"prompt":"hi"}' });
      expect(response.status).toBe(404);
      expect(s.server.received.length).toBe(before);
      expect(s.gateway.usage('llama').refused?.reasons).toEqual({ route_not_allowed: 1 });
    });
  });

  it('with a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK), sends it as the bearer and signs nothing', async () => {
    const key = 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxlLTAxMjM0NTY3ODk=';
    const s = await setUp('bedrock', 'bedrock', model, { AWS_BEARER_TOKEN_BEDROCK: key, AWS_REGION: 'us-east-1' }, (server) => server.url);
    try {
      const { id } = await s.run();
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.headers.authorization).toBe(`Bearer ${key}`);
      expect(sent.headers['x-amz-date']).toBeUndefined();
      expectMetered(s.gateway, id, 'bedrock', cost('bedrock', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }));
      expect(recorded(s.cassetteDir)).not.toContain(key);
    } finally {
      await s.close();
    }
  });
});

describe('Azure OpenAI (v1 Responses API) through the gateway', () => {
  it('sends the deployment to /openai/v1/responses with the key in api-key; prices by the model the answer names', async () => {
    const key = '3f9a1c0e7b2d4a6f8e1c3b5d7a9f0e2c';
    const s = await setUp('azure', 'azure', 'my-gpt41mini', { AZURE_API_KEY: key, AZURE_RESOURCE_NAME: 'contoso' }, (server) => `${server.url}/openai/v1`);
    try {
      const { id, toolCalls, sdkInput } = await s.run();
      expect(toolCalls).toEqual([['call_1', 'read_file', { path: 'src/a.py' }]]);
      expect(sdkInput).toBe(totalInput('azure'));
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.path).toBe('/openai/v1/responses');
      expect(JSON.parse(sent.body.toString('utf8'))).toMatchObject({ model: 'my-gpt41mini' });
      expect(sent.headers['api-key']).toBe(key);
      expect(sent.headers.authorization).toBeUndefined();
      expect(headerText(sent)).not.toContain(DUMMY);
      expectMetered(s.gateway, id, 'azure', cost('azure', { input: 0.4, output: 1.6, cacheRead: 0.1 }));
      expect(s.gateway.usage(id).models).toEqual({ [ANSWERING_MODEL.azure]: 1 });
      expect(recorded(s.cassetteDir)).not.toContain(key);
    } finally {
      await s.close();
    }
  });

  it('builds the default upstream from AZURE_RESOURCE_NAME, and names it when it is missing', () => {
    const spec = 'azure:my-gpt41mini';
    expect(upstreamFor('azure', { env: { AZURE_API_KEY: 'k', AZURE_RESOURCE_NAME: 'contoso' }, replay: false, spec }).config).toEqual({
      kind: 'openai',
      baseUrl: 'https://contoso.openai.azure.com/openai/v1',
      apiKeyEnv: 'AZURE_API_KEY',
      auth: { scheme: 'api-key' },
    });
    expect(() => upstreamFor('azure', { env: { AZURE_API_KEY: 'k' }, replay: false, spec })).toThrow(/azure needs AZURE_RESOURCE_NAME/);
  });
});

/**
 * Workload identity federation credentials: google-auth-library exchanges a subject token at
 * token_url, which is on the platform server too, so the credentials name it once it is up.
 */
function workloadIdentity(): { env: Record<string, string>; baseUrl: (server: PlatformServer) => string } {
  const dir = tempDir();
  const subject = join(dir, 'subject-token');
  writeFileSync(subject, 'local-subject-token');
  const credentials = join(dir, 'adc.json');
  return {
    env: { GOOGLE_APPLICATION_CREDENTIALS: credentials, GOOGLE_VERTEX_PROJECT: 'proj-1', GOOGLE_VERTEX_LOCATION: 'us-central1' },
    baseUrl: (srv) => {
      writeFileSync(
        credentials,
        JSON.stringify({
          type: 'external_account',
          audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/pool/providers/local',
          subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
          token_url: `${srv.url}/sts/token`,
          credential_source: { file: subject },
        }),
      );
      return `${srv.url}/v1/projects/proj-1/locations/us-central1`;
    },
  };
}

describe('Google Vertex AI (Gemini) through the gateway', () => {
  it('sends generateContent under the project with an ADC access token; the agent asks Google for none', async () => {
    let s: Setup | undefined;
    try {
      const adc = workloadIdentity();
      expect(upstreamFor('vertex', { env: adc.env, replay: false, spec: 'vertex:gemini-2.5-flash' }).config).toEqual({
        kind: 'vertex',
        baseUrl: 'https://us-central1-aiplatform.googleapis.com/v1/projects/proj-1/locations/us-central1',
        auth: { scheme: 'google-adc' },
      });
      s = await setUp('vertex', 'vertex', 'gemini-2.5-flash', adc.env, adc.baseUrl);
      const { id, toolCalls, sdkInput } = await s.run();
      expect(toolCalls.map(([, name, input]) => [name, input])).toEqual([['read_file', { path: 'src/a.py' }]]);
      expect(sdkInput).toBe(totalInput('vertex'));
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.path).toBe('/v1/projects/proj-1/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent');
      expect(sent.headers.authorization).toBe(`Bearer ${s.server.accessToken}`);
      expect(sent.headers['x-goog-api-key']).toBeUndefined();
      expect(headerText(sent)).not.toContain(DUMMY);
      expectMetered(s.gateway, id, 'vertex', cost('vertex', { input: 0.3, output: 2.5, cacheRead: 0.03 }));
      expect(recorded(s.cassetteDir)).not.toContain(s.server.accessToken);
    } finally {
      await s?.close();
    }
  });

  it("meters Claude Code's call on Vertex (streamRawPredict), under the host's project and location whatever the agent names", async () => {
    const adc = workloadIdentity();
    const claude = 'claude-sonnet-4-5@20250929';
    const s = await setUp('vertex', 'vertex', claude, adc.env, adc.baseUrl);
    try {
      const { baseUrls } = s.gateway.openSession('claude', { model: claude, cassette: 'task/claude/1' });
      const response = await fetch(`${baseUrls.vertex}/projects/crucible/locations/gateway/publishers/anthropic/models/${claude}:streamRawPredict`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${DUMMY}` },
        body: JSON.stringify({ anthropic_version: 'vertex-2023-10-16', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'Fix it.' }] }),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('event: message_stop');
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.path).toBe(`/v1/projects/proj-1/locations/us-central1/publishers/anthropic/models/${claude}:streamRawPredict`);
      expect(sent.headers.authorization).toBe(`Bearer ${s.server.accessToken}`);
      const u = PLATFORM_USAGE.vertex;
      expect(s.gateway.usage('claude')).toMatchObject({
        requests: 1,
        inputTokens: totalInput('vertex'),
        cacheReadTokens: u.cacheRead,
        outputTokens: u.output,
        unmeteredResponses: 0,
      });
      expect(s.gateway.turns('claude')).toMatchObject([{ api: 'messages', requestedModel: claude, toolCalls: [{ id: 'call_1', name: 'read_file' }] }]);
      // rawPredict for another model than the attempt's is refused like any other request.
      const other = await fetch(`${baseUrls.vertex}/projects/p/locations/l/publishers/anthropic/models/claude-opus-4-1@20250805:rawPredict`, {
        method: 'POST',
        body: '{}',
      });
      expect(other.status).toBe(400);
    } finally {
      await s.close();
    }
  });

  it('names the project and location variables when they are missing', () => {
    expect(() => upstreamFor('vertex', { env: { GOOGLE_VERTEX_LOCATION: 'global' }, replay: false, spec: 'vertex:gemini-2.5-pro' })).toThrow(
      /vertex needs GOOGLE_VERTEX_PROJECT/,
    );
    expect(
      upstreamFor('vertex', { env: { GOOGLE_VERTEX_PROJECT: 'p', GOOGLE_VERTEX_LOCATION: 'global' }, replay: false, spec: 'vertex:x' }).config.baseUrl,
    ).toBe('https://aiplatform.googleapis.com/v1/projects/p/locations/global');
  });
});

describe('OpenRouter (Chat Completions) through the gateway', () => {
  it('sends the slug to /api/v1/chat/completions with the real key; prices by the requested slug when the answer names a dated one', async () => {
    const key = 'sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
    const s = await setUp('openrouter', 'openrouter', 'anthropic/claude-sonnet-4.5', { OPENROUTER_API_KEY: key }, (server) => `${server.url}/api/v1`);
    try {
      const { id, toolCalls, sdkInput } = await s.run();
      expect(toolCalls).toEqual([['call_1', 'read_file', { path: 'src/a.py' }]]);
      expect(sdkInput).toBe(totalInput('openrouter'));
      const sent = s.server.received.at(-1) as PlatformRequest;
      expect(sent.path).toBe('/api/v1/chat/completions');
      expect(JSON.parse(sent.body.toString('utf8'))).toMatchObject({ model: 'anthropic/claude-sonnet-4.5', usage: { include: true } });
      expect(sent.headers.authorization).toBe(`Bearer ${key}`);
      expectMetered(s.gateway, id, 'openrouter', cost('openrouter', { input: 3, output: 15, cacheRead: 0.3 }));
      expect(recorded(s.cassetteDir)).not.toContain(key);
    } finally {
      await s.close();
    }
  });
});
