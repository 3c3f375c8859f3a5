import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type Docker from 'dockerode';

/**
 * A pass-through in front of an engine on TCP that keeps the body of every `containers/create` it
 * forwards: what each container was asked to mount, seen before the engine acts on it, however
 * soon the container is removed afterwards (a process's containers are gone once it ends).
 * Attach and exec streams (an HTTP upgrade) are piped byte for byte both ways.
 */
export interface EngineRecorder {
  /** `tcp://127.0.0.1:<port>`, for DOCKER_HOST. */
  host: string;
  /** The create requests forwarded so far, in order. */
  creates: Docker.ContainerCreateOptions[];
  close(): Promise<void>;
}

export async function recordEngine(upstreamPort: number): Promise<EngineRecorder> {
  const creates: Docker.ContainerCreateOptions[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((incoming, reply) => {
    const forwarded = request({ host: '127.0.0.1', port: upstreamPort, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      reply.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(reply);
    });
    forwarded.once('error', () => reply.destroy());
    if (/^\/(v[\d.]+\/)?containers\/create(\?|$)/.test(incoming.url ?? '')) keepBody(incoming, creates);
    incoming.pipe(forwarded);
  });
  server.on('connection', (socket: Socket) => (sockets.add(socket), socket.once('close', () => sockets.delete(socket))));
  server.on('upgrade', (incoming: IncomingMessage, socket: Socket, head: Buffer) => {
    const upstream = connect({ host: '127.0.0.1', port: upstreamPort, allowHalfOpen: true }, () => {
      const headers = [];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) headers.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}\r\n`);
      upstream.write(`${incoming.method} ${incoming.url} HTTP/${incoming.httpVersion}\r\n${headers.join('')}\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    sockets.add(upstream);
    upstream.once('close', () => (sockets.delete(upstream), socket.destroy()));
    socket.once('close', () => upstream.destroy());
    upstream.once('error', () => socket.destroy());
    socket.once('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    host: `tcp://127.0.0.1:${port}`,
    creates,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function keepBody(incoming: IncomingMessage, into: Docker.ContainerCreateOptions[]): void {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.once('end', () => into.push(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Docker.ContainerCreateOptions));
}

/** The host paths a container's HostConfig binds in: its `Binds` and its `bind` mounts. */
export function boundHostPaths(config: Docker.HostConfig | undefined): string[] {
  const binds = (config?.Binds ?? []).map((bind) => bind.split(':')[0] ?? bind);
  const mounts = (config?.Mounts ?? []).filter((mount) => mount.Type === 'bind').map((mount) => mount.Source);
  return [...binds, ...mounts];
}
