import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeUpstream, USAGE, type FakeUpstream } from './fake-upstream.js';
import { chatRequest, OPENAI_KEY, postOverSocket, startTestGateway } from './helpers.js';

let fake: FakeUpstream;
let dir: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  dir = mkdtempSync(join(tmpdir(), 'crucible-gw-sock-'));
});
afterAll(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

it('serves sessions over a Unix socket as well as TCP, and removes the socket on close', async () => {
  const socketPath = join(dir, 'gateway.sock');
  const gateway = await startTestGateway(fake, { socketPath });
  expect(gateway.socketPath).toBe(socketPath);
  const { token } = gateway.openSession('over-socket');
  const reply = await postOverSocket(socketPath, `/s/${token}/openai/v1/chat/completions`, chatRequest({ stream: true }));
  expect(reply.status).toBe(200);
  expect(reply.text).toContain('data: [DONE]');
  expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  expect(gateway.usage('over-socket')).toMatchObject({ requests: 1, inputTokens: USAGE.chat.prompt });
  await gateway.close();
  expect(existsSync(socketPath)).toBe(false);
});
