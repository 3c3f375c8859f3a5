/**
 * The harness's side of the Python sentinel (python-sentinel-source.ts). Each verification run gets
 * a fresh directory outside the workspace, shown read-only in the sandbox, holding the
 * sitecustomize (sentinel + import path), the run's configuration (the workspace, the change's
 * files, the report paths) and the Unix socket the harness listens on. Every Python process of the
 * run connects on start-up and reports there; what it reported is evidence of the run, read by the
 * harness outside the process. Nothing of the change's text is read here.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SentinelEvidence, SentinelFinding } from '../../core/types/index.js';
import { closeChannel, listenChannel } from './channel-close.js';
import { IMPORT_PATH_SOURCE } from './python-safe-path.js';
import { SENTINEL_SOURCE } from './python-sentinel-source.js';

/** What one run's sentinel knows before the run. */
export interface SentinelConfig {
  /** The workspace as the processes see it (a container-native task's workdir too). */
  roots: readonly string[];
  /** Workspace-relative files of the change under verification (none for a baseline run). */
  changeFiles: readonly string[];
  /** Absolute paths of the run's reports: only the runner may write them. */
  reports: readonly string[];
}

/** A sentinel that is listening: the environment for the test command, and the evidence once it ended. */
export interface RunningSentinel {
  env: Record<string, string>;
  /** Stops listening and returns what every connection reported; waits for open connections up to `graceMs`. */
  collect(graceMs?: number): Promise<SentinelEvidence>;
}

const SOCKET = 'channel.sock';
/** sockaddr_un holds 108 bytes with the NUL. */
const MAX_SOCKET_PATH = 100;
const MAX_FINDINGS = 200;
/** One process's channel; past it the rest is not kept (and counted as garbled). */
const MAX_CONNECTION_BYTES = 512 * 1024;
const MAX_CONNECTIONS = 4096;
/** After the command ended, how long connections still open are waited for (a process cannot outlive the sandbox). */
const DEFAULT_GRACE_MS = 5_000;

/**
 * A fresh directory for one run's sentinel, with a short path (a Unix socket's path is limited):
 * callers show it read-only in the sandbox, and remove it with `removeSentinelDir`.
 */
export async function makeSentinelDir(): Promise<string> {
  const base = join(tmpdir(), 'crucible-py-').length + 6 + SOCKET.length + 1 <= MAX_SOCKET_PATH ? tmpdir() : '/tmp';
  return mkdtemp(join(base, 'crucible-py-'));
}

export async function removeSentinelDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** The sitecustomize a sentinel run loads: the sentinel first, then the import path. */
export const SENTINEL_SITECUSTOMIZE = `# Written by crucible for a verification run; see src/domain/evidence/python-sentinel.ts.
${SENTINEL_SOURCE}

${IMPORT_PATH_SOURCE}`;

/** Writes the sentinel's files into `dir` and listens on its socket. */
export async function startSentinel(dir: string, config: SentinelConfig): Promise<RunningSentinel> {
  const socketPath = join(dir, SOCKET);
  await writeFile(join(dir, 'sitecustomize.py'), SENTINEL_SITECUSTOMIZE, { mode: 0o444 });
  await writeFile(
    join(dir, 'sentinel.json'),
    JSON.stringify({ socket: socketPath, roots: config.roots, change: config.changeFiles, reports: config.reports }),
    { mode: 0o444 },
  );
  const channel = new Channel();
  const server = await listenChannel(socketPath, (socket) => channel.accept(socket));
  return {
    env: { PYTHONSAFEPATH: '1', PYTHONPATH: dir },
    collect: (graceMs = DEFAULT_GRACE_MS) => channel.collect(server, graceMs),
  };
}

interface Connection {
  socket: Socket;
  buffered: string;
  bytes: number;
  pid?: number;
  token?: string;
  runner: boolean;
  ended: boolean;
  closed: Promise<void>;
}

/** Every connection's lines, parsed as they come. */
class Channel {
  private readonly connections: Connection[] = [];
  private readonly findings: SentinelFinding[] = [];
  private moreFindings = 0;
  private garbled = 0;
  private refused = 0;

  accept(socket: Socket): void {
    if (this.connections.length >= MAX_CONNECTIONS) {
      this.refused++;
      socket.destroy();
      return;
    }
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    const conn: Connection = { socket, buffered: '', bytes: 0, runner: false, ended: false, closed };
    this.connections.push(conn);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(conn, chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (conn.buffered !== '') this.line(conn, conn.buffered);
      conn.buffered = '';
      resolveClosed();
    });
  }

  private receive(conn: Connection, chunk: string): void {
    conn.bytes += Buffer.byteLength(chunk);
    if (conn.bytes > MAX_CONNECTION_BYTES) {
      // A sentinel writes a few hundred short lines at most: the rest was written by the process itself.
      if (conn.bytes - Buffer.byteLength(chunk) <= MAX_CONNECTION_BYTES) this.garbled++;
      return;
    }
    const lines = (conn.buffered + chunk).split('\n');
    conn.buffered = lines.pop() ?? '';
    for (const line of lines) this.line(conn, line);
  }

  private line(conn: Connection, line: string): void {
    const parts = line.split('\t').map(unescapeField);
    const [kind] = parts;
    if (kind === 'hello' && parts.length >= 7 && conn.pid === undefined) {
      conn.pid = Number(parts[2]);
      conn.runner = parts[1] === 'start' && parts[4] === '1';
      conn.token = parts[5];
      return;
    }
    if (kind === 'event' && parts.length === 5 && conn.pid !== undefined && !conn.ended) {
      const finding: SentinelFinding = {
        event: parts[1] ?? '',
        detail: parts[2] ?? '',
        file: parts[3] ?? '',
        line: Number(parts[4]) || 0,
        pid: conn.pid,
      };
      if (this.findings.length < MAX_FINDINGS) this.findings.push(finding);
      else this.moreFindings++;
      return;
    }
    if (kind === 'end' && parts.length === 3 && conn.pid !== undefined && parts[1] === String(conn.pid) && parts[2] === conn.token && !conn.ended) {
      conn.ended = true;
      return;
    }
    this.garbled++;
  }

  async collect(server: Server, graceMs: number): Promise<SentinelEvidence> {
    await closeChannel(server, this.connections, graceMs);
    const started = this.connections.filter((c) => c.pid !== undefined);
    return {
      processes: started.length,
      runners: started.filter((c) => c.runner).length,
      unfinished: started.filter((c) => c.runner && !c.ended).map((c) => c.pid as number),
      findings: this.findings,
      ...(this.moreFindings > 0 ? { moreFindings: this.moreFindings } : {}),
      ...(this.garbled + this.refused > 0 ? { garbled: this.garbled + this.refused } : {}),
    };
  }
}

/** The sentinel's field escaping: backslash, tab and newline. */
function unescapeField(field: string): string {
  return field.replace(/\\([\\tn])/g, (_m, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : '\\'));
}
