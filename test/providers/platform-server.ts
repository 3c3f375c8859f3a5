/**
 * A local stand-in for the cloud platforms that host models: Bedrock Runtime's Converse API,
 * Azure OpenAI's v1 Responses API, Vertex AI's generateContent (and Google's STS token endpoint,
 * which google-auth-library calls for workload identity federation), and OpenRouter's Chat
 * Completions. Each answer is a tool call in that platform's own response shape, with the usage
 * that platform reports.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bedrockEventFrame, invokeChunkFrame } from '../gateway/event-stream-frames.js';

export type Platform = 'bedrock' | 'azure' | 'vertex' | 'openrouter';

export interface PlatformRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface PlatformServer {
  url: string;
  received: PlatformRequest[];
  /** The access token the STS endpoint hands out. */
  accessToken: string;
  close(): Promise<void>;
}

/** What each platform reports for one answer: uncached input, cache reads and writes, output. */
export const PLATFORM_USAGE: Record<Platform, { uncached: number; cacheRead: number; cacheWrite: number; output: number }> = {
  bedrock: { uncached: 1200, cacheRead: 800, cacheWrite: 100, output: 90 },
  azure: { uncached: 1500, cacheRead: 512, cacheWrite: 0, output: 70 },
  vertex: { uncached: 1100, cacheRead: 256, cacheWrite: 0, output: 60 },
  openrouter: { uncached: 1300, cacheRead: 400, cacheWrite: 0, output: 50 },
};

/** The model each platform's answer names (Bedrock names none). */
export const ANSWERING_MODEL: Record<Exclude<Platform, 'bedrock'>, string> = {
  azure: 'gpt-4.1-mini-2025-04-14',
  vertex: 'gemini-2.5-flash',
  // OpenRouter names the dated canonical slug, not the one requested.
  openrouter: 'anthropic/claude-4.5-sonnet-20250929',
};

const CALL = { id: 'call_1', name: 'read_file', args: { path: 'src/a.py' } };

export async function startPlatformServer(platform: Platform): Promise<PlatformServer> {
  const received: PlatformRequest[] = [];
  const accessToken = 'ya29.local-access-token-0123456789';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '';
      if (path === '/sts/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            access_token: accessToken,
            issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            token_type: 'Bearer',
            expires_in: 3600,
          }),
        );
        return;
      }
      received.push({ method: req.method ?? '', path, headers: req.headers, body });
      const stream = streamed(platform, path);
      if (stream) {
        res.writeHead(200, { 'content-type': stream.contentType });
        for (const piece of stream.pieces) res.write(piece);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(platform)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    accessToken,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The streamed answers: Bedrock's converse-stream and invoke-with-response-stream (Claude Code on
 * Bedrock) as AWS event-stream frames, and Claude on Vertex's streamRawPredict as Anthropic SSE.
 * The same tool call and usage as the unstreamed answers.
 */
function streamed(platform: Platform, path: string): { contentType: string; pieces: Array<Buffer | string> } | undefined {
  const u = PLATFORM_USAGE[platform];
  const eventStream = 'application/vnd.amazon.eventstream';
  if (platform === 'bedrock' && path.endsWith('/converse-stream')) {
    return {
      contentType: eventStream,
      pieces: [
        bedrockEventFrame('messageStart', { role: 'assistant' }),
        bedrockEventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'On it.' } }),
        bedrockEventFrame('contentBlockStop', { contentBlockIndex: 0 }),
        bedrockEventFrame('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: CALL.id, name: CALL.name } } }),
        bedrockEventFrame('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: JSON.stringify(CALL.args) } } }),
        bedrockEventFrame('contentBlockStop', { contentBlockIndex: 1 }),
        bedrockEventFrame('messageStop', { stopReason: 'tool_use' }),
        bedrockEventFrame('metadata', {
          usage: {
            inputTokens: u.uncached,
            outputTokens: u.output,
            totalTokens: u.uncached + u.cacheRead + u.cacheWrite + u.output,
            cacheReadInputTokens: u.cacheRead,
            cacheWriteInputTokens: u.cacheWrite,
          },
          metrics: { latencyMs: 640 },
        }),
      ],
    };
  }
  const claude = anthropicEvents(u, platform === 'bedrock');
  if (platform === 'bedrock' && path.endsWith('/invoke-with-response-stream')) return { contentType: eventStream, pieces: claude.map(invokeChunkFrame) };
  if (platform === 'vertex' && path.includes(':streamRawPredict')) {
    return { contentType: 'text/event-stream', pieces: claude.map((e) => `event: ${String(e['type'])}\ndata: ${JSON.stringify(e)}\n\n`) };
  }
  return undefined;
}

/** Anthropic's Messages stream for the tool call; on Bedrock its message_stop carries AWS's invocation metrics. */
function anthropicEvents(u: (typeof PLATFORM_USAGE)[Platform], bedrock: boolean): Array<Record<string, unknown>> {
  const usage = { input_tokens: u.uncached, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite, output_tokens: 1 };
  return [
    { type: 'message_start', message: { id: 'msg_bdrk_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], usage } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'On it.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: CALL.id, name: CALL.name, input: {} } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: JSON.stringify(CALL.args) } },
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: u.output } },
    {
      type: 'message_stop',
      ...(bedrock
        ? {
            'amazon-bedrock-invocationMetrics': {
              inputTokenCount: u.uncached,
              outputTokenCount: u.output,
              invocationLatency: 900,
              firstByteLatency: 300,
              cacheReadInputTokenCount: u.cacheRead,
              cacheWriteInputTokenCount: u.cacheWrite,
            },
          }
        : {}),
    },
  ];
}

function answer(platform: Platform): unknown {
  const u = PLATFORM_USAGE[platform];
  switch (platform) {
    case 'bedrock':
      return {
        output: { message: { role: 'assistant', content: [{ text: 'On it.' }, { toolUse: { toolUseId: CALL.id, name: CALL.name, input: CALL.args } }] } },
        stopReason: 'tool_use',
        usage: {
          inputTokens: u.uncached,
          outputTokens: u.output,
          totalTokens: u.uncached + u.cacheRead + u.cacheWrite + u.output,
          cacheReadInputTokens: u.cacheRead,
          cacheWriteInputTokens: u.cacheWrite,
        },
        metrics: { latencyMs: 812 },
      };
    case 'azure':
      return {
        id: 'resp_0f1e2d3c',
        object: 'response',
        created_at: 1760000000,
        status: 'completed',
        error: null,
        incomplete_details: null,
        model: ANSWERING_MODEL.azure,
        output: [{ id: 'fc_1', type: 'function_call', status: 'completed', arguments: JSON.stringify(CALL.args), call_id: CALL.id, name: CALL.name }],
        usage: {
          input_tokens: u.uncached + u.cacheRead,
          input_tokens_details: { cached_tokens: u.cacheRead },
          output_tokens: u.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: u.uncached + u.cacheRead + u.output,
        },
      };
    case 'vertex':
      return {
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: CALL.name, args: CALL.args } }] }, finishReason: 'STOP' }],
        usageMetadata: {
          promptTokenCount: u.uncached + u.cacheRead,
          candidatesTokenCount: u.output,
          totalTokenCount: u.uncached + u.cacheRead + u.output,
          cachedContentTokenCount: u.cacheRead,
          trafficType: 'ON_DEMAND',
        },
        modelVersion: ANSWERING_MODEL.vertex,
        createTime: '2025-11-01T10:00:00.000000Z',
        responseId: 'vtx-1',
      };
    case 'openrouter':
      return {
        id: 'gen-1760000000-abc',
        provider: 'Anthropic',
        model: ANSWERING_MODEL.openrouter,
        object: 'chat.completion',
        created: 1760000000,
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            native_finish_reason: 'tool_use',
            message: {
              role: 'assistant',
              content: '',
              tool_calls: [{ id: CALL.id, type: 'function', index: 0, function: { name: CALL.name, arguments: JSON.stringify(CALL.args) } }],
            },
          },
        ],
        usage: {
          prompt_tokens: u.uncached + u.cacheRead,
          completion_tokens: u.output,
          total_tokens: u.uncached + u.cacheRead + u.output,
          cost: 0.00543,
          prompt_tokens_details: { cached_tokens: u.cacheRead },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      };
  }
}
