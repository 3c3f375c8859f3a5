import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInvocation } from '../../../src/domain/agents/external/invocation.js';
import { onPlatform } from '../../../src/domain/agents/external/platform.js';
import { loadAgentCatalog, resolveAgent } from '../../../src/domain/agents/index.js';
import { upstreamFor } from '../../../src/domain/agents/models/providers.js';
import { loadPricing, startGateway, type Gateway } from '../../../src/infra/gateway/index.js';
import { useTempDirs } from '../../helpers/tmp.js';
import { PLATFORM_USAGE, startPlatformServer, type PlatformRequest, type PlatformServer } from '../../providers/platform-server.js';

const tempDir = useTempDirs();

const { profiles } = loadAgentCatalog();
const HOST = {
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  AWS_REGION: 'eu-west-1',
  ANTHROPIC_API_KEY: 'sk-ant-api03-never-given-to-the-agent',
};

/** The environment and argv one attempt of `spec` gets, with `baseUrl` as its gateway URL. */
function invocationOf(spec: string, baseUrl: string, hostEnv: Record<string, string> = HOST): ReturnType<typeof buildInvocation> & { model: string } {
  const agent = resolveAgent(spec, profiles);
  const model = agent.modelSpec?.modelId as string;
  const name = spec.split(/[@:]/)[0] as string;
  const at = spec.split(':')[0]?.split('@')[1];
  const profile = profiles.get(name);
  if (!profile) throw new Error(`no profile ${name}`);
  // The profile as resolveAgent switched it; taken again here because the Agent keeps it private.
  const switched = at === undefined ? profile : onPlatform(profile, at, spec);
  const inv = buildInvocation({
    profile: switched,
    argv0: '/agents/bin/agent',
    model,
    instruction: 'Fix it.',
    workspace: '/w',
    home: '/h',
    taskFile: '/h/crucible-task.md',
    baseUrl,
    apiKey: 'dummy-key-inside-sandbox',
    hostEnv,
  });
  return { ...inv, model };
}

describe('external agents on cloud platforms (`--agent NAME@platform`)', () => {
  it('puts claude-code@bedrock on the bedrock upstream with its default Bedrock model, or the one named', () => {
    expect(resolveAgent('claude-code@bedrock', profiles).modelSpec).toEqual({
      spec: 'claude-code@bedrock',
      provider: 'bedrock',
      modelId: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    });
    // Bedrock model ids hold a colon: everything after the first one is the model.
    expect(resolveAgent('claude-code@bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0', profiles).modelSpec).toMatchObject({
      provider: 'bedrock',
      modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0',
    });
    expect(resolveAgent('codex@azure:my-gpt-deployment', profiles).modelSpec).toMatchObject({ provider: 'azure', modelId: 'my-gpt-deployment' });
    expect(resolveAgent('qwen-code@openrouter', profiles).modelSpec).toMatchObject({ provider: 'openrouter', modelId: 'qwen/qwen3-coder' });
    expect(resolveAgent('claude-code@vertex', profiles).modelSpec).toMatchObject({ provider: 'vertex', modelId: 'claude-sonnet-4-5@20250929' });
  });

  it('refuses a platform the profile does not declare, naming the ones it does', () => {
    expect(() => resolveAgent('claude-code@azure', profiles)).toThrow(
      '--agent claude-code@azure: profile claude-code has no platform "azure" (fix: use claude-code@bedrock or claude-code@vertex)',
    );
    expect(() => resolveAgent('gemini-cli@vertex', profiles)).toThrow(/profile gemini-cli has no platform "vertex" \(fix: run gemini-cli without "@"/);
  });

  it("gives Claude Code on Bedrock its documented switches, the gateway URL, the host's region and no credential", () => {
    const inv = invocationOf('claude-code@bedrock', 'http://127.0.0.1:9/s/tok/bedrock');
    expect(inv.env).toMatchObject({
      CLAUDE_CODE_USE_BEDROCK: '1',
      CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1',
      ANTHROPIC_BEDROCK_BASE_URL: 'http://127.0.0.1:9/s/tok/bedrock',
      AWS_REGION: 'eu-west-1',
    });
    expect(inv.argv).toContain('global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']) expect(inv.env).not.toHaveProperty(name);
  });

  it('gives Claude Code on Vertex its switches, a stand-in project and region the gateway replaces, and no credential', () => {
    const inv = invocationOf('claude-code@vertex', 'http://127.0.0.1:9/s/tok/vertex');
    expect(inv.env).toMatchObject({
      CLAUDE_CODE_USE_VERTEX: '1',
      CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
      ANTHROPIC_VERTEX_BASE_URL: 'http://127.0.0.1:9/s/tok/vertex',
      CLOUD_ML_REGION: 'global',
      ANTHROPIC_VERTEX_PROJECT_ID: 'crucible-gateway',
    });
    expect(inv.env).not.toHaveProperty('ANTHROPIC_API_KEY');
  });

  it('refuses a profile that declares a platform its protocol is not metered on', () => {
    const file = join(tempDir(), 'agents.yaml');
    writeFileSync(
      file,
      `agents:\n  - name: mine\n    command_path: /bin/true\n    command: ['true']\n    protocol: { kind: openai-chat }\n    platforms: { bedrock: {} }\n`,
    );
    expect(() => loadAgentCatalog({ agentsFile: file })).toThrow(
      /platforms\.bedrock.*protocol openai-chat is not metered on bedrock.*use one of azure, openrouter/,
    );
  });

  describe('Claude Code on Bedrock, its request as its env sends it, through the gateway to a local Bedrock', () => {
    let server: PlatformServer;
    let upstream: ReturnType<typeof upstreamFor>;
    beforeAll(async () => {
      server = await startPlatformServer('bedrock');
      upstream = upstreamFor('bedrock', { env: HOST, baseUrl: server.url, replay: false, spec: 'claude-code@bedrock' });
    });
    afterAll(() => server.close());

    /** The request the Anthropic Bedrock SDK sends from ANTHROPIC_BEDROCK_BASE_URL (no auth of its own: SKIP_BEDROCK_AUTH). */
    async function claudeCodeCall(gateway: Gateway, id: string): Promise<{ status: number; bytes: Buffer; usage: ReturnType<Gateway['usage']> }> {
      const agent = resolveAgent('claude-code@bedrock', profiles);
      const { baseUrls } = gateway.openSession(id, { model: agent.modelSpec?.modelId as string, cassette: ['task', 'claude-code@bedrock', '0'] });
      const inv = invocationOf('claude-code@bedrock', baseUrls.bedrock as string);
      const base = inv.env['ANTHROPIC_BEDROCK_BASE_URL'] as string;
      const response = await fetch(`${base}/model/${encodeURIComponent(inv.model)}/invoke-with-response-stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 2048, messages: [{ role: 'user', content: 'Fix it.' }] }),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      gateway.closeSession(id);
      return { status: response.status, bytes, usage: gateway.usage(id) };
    }

    it('is signed upstream with the host credentials, metered and priced; its recording replays to the same metering offline', async () => {
      const cassetteDir = tempDir();
      const recording = await startGateway({ upstreams: { bedrock: upstream.config }, env: HOST, pricing: loadPricing(), mode: 'record', cassetteDir });
      const first = await claudeCodeCall(recording, 'a1');
      await recording.close();
      expect(first.status).toBe(200);
      const sent = server.received.at(-1) as PlatformRequest;
      expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/bedrock\//);
      const u = PLATFORM_USAGE.bedrock;
      expect(first.usage).toMatchObject({ requests: 1, inputTokens: u.uncached + u.cacheRead + u.cacheWrite, outputTokens: u.output, unmeteredResponses: 0 });
      expect(first.usage.costUsd).toBeCloseTo((u.uncached * 3 + u.cacheRead * 0.3 + u.cacheWrite * 3.75 + u.output * 15) / 1e6, 9);

      const received = server.received.length;
      const replaying = await startGateway({ upstreams: { bedrock: upstream.config }, env: {}, pricing: loadPricing(), mode: 'replay', cassetteDir });
      const again = await claudeCodeCall(replaying, 'a1');
      await replaying.close();
      expect(server.received.length).toBe(received);
      expect(again.bytes).toEqual(first.bytes);
      expect(again.usage).toMatchObject({
        inputTokens: first.usage.inputTokens,
        outputTokens: first.usage.outputTokens,
        costUsd: first.usage.costUsd,
        replayMisses: [],
      });
    });
  });
});
