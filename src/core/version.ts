import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The package version, read once from the package.json above this module: src/core/ and
 * dist/core/ (tsc's output) sit two levels below it, the bundled CLI's chunks (dist/bundle) two as
 * well but by another path, so walk up.
 */
export function version(): string {
  cached ??= (JSON.parse(readFileSync(packageJsonPath(), 'utf8')) as { version: string }).version;
  return cached;
}

function packageJsonPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`package.json not found above ${fileURLToPath(import.meta.url)}`);
}
