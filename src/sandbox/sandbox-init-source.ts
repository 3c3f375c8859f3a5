import { readFile } from 'node:fs/promises';

let cached: Promise<string> | undefined;

/**
 * The text of sandbox-init, which bwrap runs with `node -e`. Next to this module sits the compiled
 * `.js` (dist) or only the `.ts` source (src under vitest); the source is written to be valid
 * JavaScript as it stands, so either file works.
 */
export function sandboxInitSource(): Promise<string> {
  cached ??= readFile(new URL('./sandbox-init.js', import.meta.url), 'utf8').catch(() =>
    readFile(new URL('./sandbox-init.ts', import.meta.url), 'utf8'),
  );
  return cached;
}
