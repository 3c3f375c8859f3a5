import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const SYSTEM_BIN = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin'];

/**
 * A directory of links to every program of the system's bin directories except `left out`: a PATH
 * on which, say, bwrap is missing, since this machine cannot lose its own. Returns the directory.
 */
export function pathWithout(dir: string, leftOut: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const bin of SYSTEM_BIN.filter(existsSync))
    for (const name of readdirSync(bin)) if (!leftOut.includes(name) && !existsSync(join(dir, name))) symlinkSync(join(bin, name), join(dir, name));
  return dir;
}
