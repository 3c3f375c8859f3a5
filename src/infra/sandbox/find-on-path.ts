import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/** The first executable file called `name` in the directories of `searchPath` (a PATH value). */
export function findOnPath(name: string, searchPath: string | undefined): string | undefined {
  for (const dir of (searchPath ?? '').split(':')) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}
