import { createServer, type Server, type Socket } from 'node:net';

/** A server on the Unix socket `path`, listening when this resolves; `accept` takes each connection. */
export async function listenChannel(path: string, accept: (socket: Socket) => void): Promise<Server> {
  const server = createServer(accept);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * Stops a harness channel's server: waits for its open connections to close, up to `graceMs` (a
 * process cannot outlive its sandbox, so they close when the command is gone), then cuts the rest.
 */
export async function closeChannel(server: Server, connections: ReadonlyArray<{ socket: Socket; closed: Promise<void> }>, graceMs: number): Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
  await Promise.race([Promise.all(connections.map((c) => c.closed)), grace]);
  clearTimeout(timer);
  for (const c of connections) c.socket.destroy();
  await stopped;
}
