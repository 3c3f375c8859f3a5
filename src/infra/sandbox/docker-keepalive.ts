/*
 * The main process of a docker executor's container (under docker-init, which reaps orphans). It
 * keeps the container alive exactly as long as Crucible: the host holds the container's stdin
 * open through an attach, so when Crucible exits or is killed the engine closes it (StdinOnce),
 * this exits, and the container is removed (AutoRemove). For `network: 'gateway'` it also bridges
 * 127.0.0.1:<port> inside the container's empty network namespace to the gateway's Unix socket,
 * bound in read-only, as the gateway forwarder does under bwrap. Run as plain JavaScript from a bound file:
 * self-contained and free of type annotations.
 *
 * argv[2]: JSON {socketPath, port} or nothing. Prints `ready` on stdout once it serves.
 */
import { createConnection, createServer } from 'node:net';

process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
for (const name of ['SIGHUP', 'SIGPIPE']) process.on(name, () => undefined);

const gateway = process.argv[2] ? JSON.parse(process.argv[2]) : undefined;
if (gateway && typeof gateway.socketPath === 'string' && typeof gateway.port === 'number') {
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = createConnection({ path: gateway.socketPath, allowHalfOpen: true });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on('error', (error) => {
    process.stderr.write(`crucible: gateway bridge cannot listen on 127.0.0.1:${gateway.port}: ${error.message}\n`);
    process.exit(125);
  });
  server.listen(gateway.port, '127.0.0.1', () => process.stdout.write('ready\n'));
} else {
  process.stdout.write('ready\n');
}
