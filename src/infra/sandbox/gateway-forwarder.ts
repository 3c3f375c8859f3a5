/*
 * The gateway's forwarder inside a bwrap sandbox with `network: 'gateway'`: it accepts TCP on
 * 127.0.0.1:<port> in the sandbox's network namespace and pipes each connection to the gateway's
 * Unix socket. The perl init (pid 1, perl-init.ts) starts it before the command, with
 * `node --input-type=module -e <text of this file> <socketPath> <port> <readyFd>`, so it must stay
 * self-contained (node built-ins only, no relative imports) and free of type annotations: the same
 * text is checked as TypeScript and runs as JavaScript, from src under vitest as from dist.
 *
 * It holds nothing the command could use against the harness: not the init's report channel (the
 * init keeps that, non-dumpable), only a path to the gateway the command could connect to itself.
 * Once listening it writes "listening\n" on readyFd and closes it; the init starts the command
 * only then, and takes an early end of readyFd as its own setup failure.
 */
import { closeSync, writeSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

const [socketPath = '', portText = '0', readyFdText = '-1'] = process.argv.slice(1);
const readyFd = Number(readyFdText);

const server = createServer({ allowHalfOpen: true }, (client) => {
  const upstream = createConnection({ path: socketPath, allowHalfOpen: true });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on('error', (error) => {
  process.stderr.write(`crucible: gateway forwarder cannot listen on 127.0.0.1:${portText}: ${error.message}\n`);
  process.exit(125);
});
server.listen(Number(portText), '127.0.0.1', () => {
  writeSync(readyFd, 'listening\n');
  closeSync(readyFd);
});
