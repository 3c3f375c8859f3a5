/*
 * The first process inside a bwrap sandbox, and the init (pid 1) of its pid namespace: when it
 * exits, the kernel kills whatever the command left running in there. The host runs it as
 * `node --input-type=module -e <text of this file>`, so it must stay self-contained (node
 * built-ins only, no relative imports) and free of type annotations: the same text is checked as
 * TypeScript and runs as JavaScript, from src under vitest as from dist after the build.
 *
 * Why it exists: bwrap reports a command killed by signal N as exit code 128+N, which is
 * indistinguishable from `exit 128+N`; and `network: 'gateway'` needs a listener inside the
 * sandbox's network namespace. So it reads its orders on fd 3 (a socket only it holds), optionally
 * forwards 127.0.0.1:<port> to the gateway's Unix socket, runs the command with the sandbox's
 * stdio, and writes the command's real exit status back on fd 3.
 *
 * Protocol, one JSON object per line. In: {argv, env, gateway?: {socketPath, port}}.
 * Out: {"event":"ready"} once running, then {"event":"exit","exitCode","signal","notStarted"?}:
 * `notStarted` is the errno of a command this process could not start (the only word on that the
 * host believes; the command can print "command not found" and exit 127 on its own).
 */
import { spawn } from 'node:child_process';
import { closeSync, readFileSync, readdirSync } from 'node:fs';
import { createConnection, createServer, Socket } from 'node:net';
import { constants } from 'node:os';

const CONTROL_FD = 3;
const O_CLOEXEC = 0o2000000;
/** Node may emit both 'error' and 'exit' for a command that failed to start; report once. */
let finished = false;

closeInheritedDescriptors();
// The reporter must outlive the command: the command shares its process group (`kill 0`), and
// the harness's tree-kill sends SIGTERM to everyone. (As pid 1 it would ignore most of these
// anyway; this holds if it is ever run otherwise.)
for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(name, () => undefined);

const control = new Socket({ fd: CONTROL_FD, readable: true, writable: true, allowHalfOpen: true });
control.on('error', () => process.exit(125));
report({ event: 'ready' });

let received = Buffer.alloc(0);
control.on('data', (chunk) => {
  received = Buffer.concat([received, chunk]);
  const newline = received.indexOf(10);
  if (newline < 0) return;
  control.removeAllListeners('data');
  control.pause();
  start(received.subarray(0, newline).toString('utf8'));
});

function start(line = '') {
  const orders = JSON.parse(line);
  const argv = Array.isArray(orders.argv) ? orders.argv.map(String) : [];
  const env = typeof orders.env === 'object' && orders.env !== null ? orders.env : {};
  const gateway = orders.gateway;
  if (gateway && typeof gateway.socketPath === 'string' && typeof gateway.port === 'number') {
    forwardGateway(gateway.socketPath, gateway.port, () => runCommand(argv, env));
  } else {
    runCommand(argv, env);
  }
}

/** Accepts TCP on 127.0.0.1:port and pipes each connection to the gateway's Unix socket. */
function forwardGateway(socketPath = '', port = 0, onListening = () => {}) {
  const server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = createConnection({ path: socketPath, allowHalfOpen: true });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on('error', (error) => {
    process.stderr.write(`crucible: gateway forwarder cannot listen on 127.0.0.1:${port}: ${error.message}\n`);
    finish(125, '', `gateway forwarder: ${'code' in error ? String(error.code) : 'error'}`);
  });
  server.listen(port, '127.0.0.1', onListening);
}

function runCommand(argv = [''], env = {}) {
  const [command, ...args] = argv;
  if (!command) {
    process.stderr.write('crucible: empty argv\n');
    finish(125, '', 'empty argv');
    return;
  }
  const child = spawn(command, args, { env, stdio: 'inherit' });
  child.on('error', (error) => {
    const code = 'code' in error ? String(error.code) : 'unknown error';
    const missing = code === 'ENOENT';
    process.stderr.write(`crucible: ${command}: ${missing ? 'command not found' : `cannot execute (${code})`}\n`);
    finish(missing ? 127 : 126, '', code);
  });
  child.on('exit', (code, signal) => finish(code ?? -1, signal ?? ''));
}

/** `exitCode` -1, `signal` '' and `notStarted` '' stand for none (defaults keep this file annotation-free). */
function finish(exitCode = -1, signal = '', notStarted = '') {
  if (finished) return;
  finished = true;
  report({ event: 'exit', exitCode: exitCode < 0 ? null : exitCode, signal: signal || null, ...(notStarted ? { notStarted } : {}) }, () => {
    const signalNumber = Object.entries(constants.signals).find(([name]) => name === signal)?.[1] ?? 0;
    process.exit(exitCode >= 0 ? exitCode : 128 + signalNumber);
  });
}

function report(message = {}, then = () => {}) {
  control.write(`${JSON.stringify(message)}\n`, () => then());
}

/**
 * Descriptors the harness's own parent leaked to it (not close-on-exec) would otherwise reach the
 * command; node's own descriptors are all close-on-exec, so those without the flag are strays.
 */
function closeInheritedDescriptors() {
  for (const name of readdirSync('/proc/self/fd')) {
    const fd = Number(name);
    if (fd <= CONTROL_FD) continue;
    try {
      const flags = /flags:\s+([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (flags && (parseInt(flags[1] ?? '0', 8) & O_CLOEXEC) === 0) closeSync(fd);
    } catch {
      // Gone already (the directory listing's own descriptor, for one).
    }
  }
}
