import { randomBytes } from 'node:crypto';
import { lstatSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withoutClientIds } from './canonical.js';
import { CassetteWriter, cassetteKeyText, cassettePath, findCassette, readCassette } from './cassette.js';
import { createRequestHandler, type SessionState } from './handler.js';
import { SessionMeter } from './meter.js';
import { loadPricing } from './pricing.js';
import { DEFAULT_PROVIDER_STALL_MS, ProviderWatch } from './provider-watch.js';
import { ReplayBook } from './replay.js';
import type { ProviderHealth } from '../../core/types/index.js';
import type { Gateway, GatewayOptions, ModelTurn, Session, SessionOptions, SessionUsage } from './types.js';
import { agentBaseUrl, resolveUpstreams, secretValues } from './upstreams.js';
import { Volatility } from './volatile.js';

interface OpenSession extends SessionState {
  token: string;
  open: boolean;
}

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const mode = options.mode ?? 'live';
  const cassetteDir = options.cassetteDir;
  if (mode !== 'live' && cassetteDir === undefined) throw new Error(`gateway mode "${mode}" needs cassetteDir`);
  const upstreams = resolveUpstreams(options.upstreams);
  const env = options.env ?? process.env;
  const pricing = options.pricing ?? loadPricing();
  const sessions = new Map<string, OpenSession>();
  const byToken = new Map<string, OpenSession>();

  const handler = createRequestHandler({
    mode,
    upstreams,
    env,
    maxRequestBytes: options.maxRequestBytes ?? 32 * 1024 * 1024,
    stallMs: options.stallMs ?? DEFAULT_PROVIDER_STALL_MS,
    ...(options.runPool ? { runPool: options.runPool } : {}),
    openSessionByToken: (token) => {
      const session = byToken.get(token);
      return session?.open ? session : undefined;
    },
  });

  const host = options.host ?? '127.0.0.1';
  const tcp = createServer(handler);
  await listen(tcp, { port: options.port ?? 0, host });
  const { port } = tcp.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let unix: Server | undefined;
  if (options.socketPath !== undefined) {
    removeStaleSocket(options.socketPath);
    unix = createServer(handler);
    await listen(unix, { path: options.socketPath });
  }

  const sessionOf = (attemptId: string): OpenSession => {
    const session = sessions.get(attemptId);
    if (!session) throw new Error(`gateway: no session for attempt ${attemptId}`);
    return session;
  };

  return {
    url,
    ...(options.socketPath !== undefined ? { socketPath: options.socketPath } : {}),

    openSession(attemptId: string, sessionOptions: SessionOptions = {}): Session {
      if (sessions.has(attemptId)) throw new Error(`gateway: attempt ${attemptId} already has a session`);
      const token = randomBytes(18).toString('base64url');
      const state: OpenSession = {
        token,
        attemptId,
        open: true,
        meter: new SessionMeter(sessionOptions, pricing),
        volatility: new Volatility(sessionOptions.volatile, token),
        ...(sessionOptions.model !== undefined ? { pin: { model: sessionOptions.model, others: sessionOptions.otherModels ?? 'refuse' } } : {}),
        turns: [],
        nextSeq: 0,
        provider: new ProviderWatch(),
      };
      if (mode !== 'live') {
        const key = sessionOptions.cassette;
        if (key === undefined) throw new Error(`gateway mode "${mode}" needs a cassette key for attempt ${attemptId}`);
        const dir = cassetteDir as string;
        if (mode === 'record') state.recorder = new CassetteWriter(cassettePath(dir, key), cassetteKeyText(key), () => secretValues(upstreams.values(), env));
        else {
          const file = findCassette(dir, key) ?? cassettePath(dir, key);
          state.replay = new ReplayBook(readCassette(file, key).exchanges, (canonical) => state.volatility.normalise(withoutClientIds(canonical)));
        }
      }
      sessions.set(attemptId, state);
      byToken.set(state.token, state);
      const baseUrls: Record<string, string> = {};
      for (const upstream of upstreams.values()) baseUrls[upstream.name] = agentBaseUrl(url, state.token, upstream);
      return { token: state.token, baseUrls: baseUrls as Session['baseUrls'] };
    },

    usage(attemptId: string): SessionUsage {
      return sessionOf(attemptId).meter.snapshot();
    },

    provider(attemptId: string): ProviderHealth {
      return sessionOf(attemptId).provider.snapshot();
    },

    turns(attemptId: string): ModelTurn[] {
      return [...sessionOf(attemptId).turns];
    },

    closeSession(attemptId: string): void {
      const session = sessionOf(attemptId);
      session.open = false;
      byToken.delete(session.token);
    },

    async close(): Promise<void> {
      await Promise.all([tcp, unix].filter((s): s is Server => s !== undefined).map(closeServer));
      if (options.socketPath !== undefined) rmSync(options.socketPath, { force: true });
    },
  };
}

function listen(server: Server, address: { port: number; host: string } | { path: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A socket left by a crashed run would make listen fail; anything that is not a socket is left alone. */
function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) rmSync(path);
  } catch {
    // Nothing there.
  }
}
