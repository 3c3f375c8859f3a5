import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real redis-server on a free loopback port, with append-only persistence in its own directory. */
export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (SIGTERM: it flushes its append-only file) and starts it again on the same port (and data, with persistence). */
  restart(): Promise<void>;
  /** Stops it for good and removes its directory. */
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** Append-only persistence (default true); without it a restart starts empty, as after a crash of a cache-only Redis. */
  persistence?: boolean;
  /** `requirepass`. */
  password?: string;
}

export async function startRedis(serverOptions: RedisServerOptions = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'crucible-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const persistence = serverOptions.persistence === false ? 'no' : 'yes';
    const auth = serverOptions.password === undefined ? [] : ['--requirepass', serverOptions.password];
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', persistence, '--dir', dir, ...auth], {
      stdio: 'ignore',
    });
    // Ready when it answers PING (redis-cli is installed with the server).
    const cliAuth = serverOptions.password === undefined ? [] : ['--no-auth-warning', '-a', serverOptions.password];
    for (let i = 0; i < 200; i++) {
      if (spawnSync('redis-cli', ['-p', String(port), ...cliAuth, 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not answer on port ${port}`);
  };
  const halt = async (): Promise<void> => {
    const c = child;
    if (c === undefined || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    restart: async () => {
      await halt();
      await launch();
    },
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}
