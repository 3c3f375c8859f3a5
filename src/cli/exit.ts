import pc from 'picocolors';
import { InputError } from '../errors.js';
import { environmentMessage } from './environment-error.js';

/** Prints an error the way a user should see it and returns the exit code. */
export function handleError(error: unknown): number {
  if (error instanceof InputError) {
    process.stderr.write(`${pc.red('error')} ${error.message}\n`);
    return error.exitCode;
  }
  const environment = environmentMessage(error);
  if (environment !== undefined) {
    process.stderr.write(`${pc.red('error')} ${environment}\n`);
    return 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${pc.red('crucible failed')} ${message}\n`);
  if (process.env.DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  else process.stderr.write('(set DEBUG=1 for a stack trace; this is a bug in Crucible, please report it)\n');
  return 1;
}
