/**
 * An OpenAI-compatible upstream that counts every request it receives, whatever its path, and
 * answers any POST with a chat completion billed PROMPT_TOKENS in and the request's `max_tokens`
 * out (50 without one), naming the requested model as the one that answered. With `hold`, answers
 * wait for release(), so a test can have many requests in flight at once.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PROMPT_TOKENS = 1200;

export interface CountingUpstream {
  url: string;
  /** Method and path of every request received, in arrival order. */
  received: string[];
  release(): void;
  close(): Promise<void>;
}

export async function startCountingUpstream(options: { hold?: boolean } = {}): Promise<CountingUpstream> {
  const received: string[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  if (!options.hold) release();
  const server = createServer((req, res) => {
    void readAll(req).then(async (body) => {
      received.push(`${req.method ?? ''} ${req.url ?? ''}`);
      await released;
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // A GET, or not JSON: answered all the same.
      }
      const completion = typeof json['max_tokens'] === 'number' ? json['max_tokens'] : 50;
      const text = JSON.stringify({
        id: `chatcmpl-${received.length}`,
        object: 'chat.completion',
        created: 1741569952,
        model: typeof json['model'] === 'string' ? json['model'] : 'unnamed',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: completion, total_tokens: PROMPT_TOKENS + completion },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    release: () => release(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}
