import { lookup } from 'node:dns/promises';
import pc from 'picocolors';
import { InputError } from '../../core/errors.js';
import { isLoopback, startServer } from '../../server/index.js';
import { wholeNumber } from '../args.js';
import { HISTORY_FIX, openHistoryReader } from '../history-reader.js';
import { shownStateDir } from '../state-dir-option.js';
import type { CliIo } from '../io.js';
import { inSession } from '../../engine/index.js';

export interface ViewCommandOptions {
  port?: string;
  host: string;
  out: string;
}

export const DEFAULT_VIEW_PORT = 4317;

/** Serves the dashboard until Ctrl-C. */
export async function viewCommand(opts: ViewCommandOptions, io: CliIo): Promise<void> {
  const port = wholeNumber('--port', opts.port, DEFAULT_VIEW_PORT, 0);
  if (port > 65535) throw new InputError(`--port ${port}: ports go up to 65535 (fix: e.g. --port ${DEFAULT_VIEW_PORT})`);
  await checkHost(opts.host);
  checkHistory(opts.out);
  if (!isLoopback(opts.host)) {
    io.stderr.write(
      `${pc.yellow('warning')} serving on ${opts.host}: the dashboard has no authentication, so anyone who can reach this address can read every run, diff and trajectory in ${shownStateDir(opts.out, io.cwd)}\n`,
    );
  }
  const server = await startServer({ stateDir: opts.out, port, host: opts.host });
  io.stdout.write(`Crucible dashboard on ${pc.bold(server.url)}  (history: ${shownStateDir(opts.out, io.cwd)}; read-only; Ctrl-C stops it)\n`);
  await inSession(
    io.signals,
    (session) => new Promise<void>((resolve) => session.stop.addEventListener('abort', () => void server.close().then(resolve), { once: true })),
  );
}

/** A host that does not resolve is a typo, said before anything starts. */
async function checkHost(host: string): Promise<void> {
  try {
    await lookup(host.replace(/^\[|\]$/g, ''));
  } catch {
    throw new InputError(`--host ${host}: does not resolve to an address (fix: use an IP address or a name this machine resolves, e.g. --host 127.0.0.1)`);
  }
}

/** A damaged history.db is the user's file to repair: read it once now, not as a bug later. */
function checkHistory(stateDir: string): void {
  const reader = openHistoryReader(stateDir);
  if (reader === undefined) return;
  try {
    // A read of the runs table: listRuns would also tally the newest run's attempts.
    reader.countRuns();
  } catch (error) {
    throw new InputError(`${reader.path}: cannot be read (${error instanceof Error ? error.message : String(error)}) (fix: ${HISTORY_FIX})`);
  } finally {
    reader.close();
  }
}
