/**
 * A reward verifier's network is the task's `tests.network`: none by default (a verifier cannot
 * reach even the host's loopback), host when the task says so (a verifier that downloads its
 * tools). Real bwrap, a real server on 127.0.0.1.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRewardVerifier } from '../../src/domain/evidence/index.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('1\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function verify(network?: 'none' | 'host'): Promise<number | undefined> {
  const dir = tempDir();
  const [workspace, resultsDir, home, tmp] = ['ws', 'results', 'home', 'tmp'].map((d) => join(dir, d)) as [string, string, string, string];
  for (const d of [workspace, resultsDir, home, tmp]) mkdirSync(d);
  const executor = createExecutor('bwrap', { writable: [workspace, resultsDir], hidden: [], readOnly: [], home, tmp });
  // The reward is what the server says: 1 only if the verifier reached it.
  const command = `python3 -c "import urllib.request,sys; print(urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=5).read().decode().strip())" > "$CRUCIBLE_REWARD" || echo 0 > "$CRUCIBLE_REWARD"`;
  try {
    const run = await runRewardVerifier({ executor, workspace, command, resultsDir, timeoutMs: 30_000, ...(network ? { network } : {}) });
    return run.evidence.reward;
  } finally {
    await executor.close();
  }
}

describe('a reward verifier’s network', () => {
  it('is none by default: the host loopback is out of reach', async () => {
    expect(await verify()).toBe(0);
  });

  it('is the host network with tests.network: host', async () => {
    expect(await verify('host')).toBe(1);
  });
});
