import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { InputError } from '../core/errors.js';
import { assertWebBundle, webAssetsDir } from '../features/report/index.js';
import { openHistory } from '../infra/store/index.js';
import { createApp } from './app.js';

export interface ServeOptions {
  stateDir: string;
  /** 0 picks a free port. */
  port: number;
  host: string;
  webDir?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Starts the dashboard over `<stateDir>/history.db`, read-only. */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const stateDir = resolve(opts.stateDir);
  const dbPath = join(stateDir, 'history.db');
  if (!existsSync(dbPath)) {
    throw new InputError(`no run history in ${opts.stateDir} (fix: run \`crucible run <taskset> --agent …\` first, or pass --out with the state directory)`);
  }
  const webDir = opts.webDir ?? webAssetsDir();
  assertWebBundle(webDir);
  const history = openHistory(dbPath, { readonly: true });
  const loopback = isLoopback(opts.host);
  const hostName = opts.host.replace(/^\[|\]$/g, '');
  const allowedHosts = loopback ? ['localhost', '127.0.0.1', '[::1]', hostName.includes(':') ? `[${hostName}]` : hostName] : undefined;
  const app = createApp({ stateDir, history, webDir, allowedHosts });
  const server = await new Promise<ReturnType<typeof serve>>((resolveServer, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: hostName }, () => resolveServer(s));
    s.once('error', (error: NodeJS.ErrnoException) => {
      history.close();
      reject(
        error.code === 'EADDRINUSE'
          ? new InputError(`port ${opts.port} on ${opts.host} is in use (fix: pass --port with another port, or 0 for any free one)`)
          : error,
      );
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = hostName.includes(':') ? `[${hostName}]` : hostName;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => {
          history.close();
          done();
        });
        // Keep-alive connections from a browser would hold close() open.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
