/**
 * Errors of the machine, not of the input or of Crucible: a sandbox that cannot run, a Docker
 * engine or a Redis server that does not answer or refuses the password. They reach the top of a
 * command as one line with the fix and exit 2 (docs/CONTRIBUTING.md), never as "a bug".
 */
export function environmentMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  // By name: the sandbox module is loaded lazily by some commands, and a second copy may exist in bundles.
  if (error.name === 'SandboxUnavailableError') return error.message;
  const code = (error as { code?: unknown }).code;
  const address = (error as { address?: unknown }).address;
  const port = (error as { port?: unknown }).port;
  if (/^(WRONGPASS|NOAUTH)\b/.test(error.message))
    return `Redis refused the connection: ${error.message.split('\n')[0]} (fix: set CRUCIBLE_QUEUE_PASSWORD to the server's password)`;
  if ((code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES') && typeof address === 'string' && /docker\.sock/.test(address))
    return `no Docker engine answers at ${address} (${String(code)}) (fix: start the Docker engine, or set DOCKER_HOST to a running one)`;
  if (code === 'ECONNREFUSED' && typeof port === 'number')
    return `nothing answers at ${typeof address === 'string' ? address : 'the host'}:${port} (${error.message.split('\n')[0]}) (fix: start the server there, e.g. redis-server for --queue, or check the address)`;
  if (error.name === 'MaxRetriesPerRequestError')
    return `Redis stopped answering: ${error.message} (fix: start redis-server again, or check the --queue address)`;
  return undefined;
}
