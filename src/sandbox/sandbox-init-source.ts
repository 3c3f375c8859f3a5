import { readFile } from 'node:fs/promises';

let cached: Promise<string> | undefined;

/**
 * The text of sandbox-init, which bwrap runs with `node -e`. In the sandbox directory sits the
 * compiled `.js` (dist) or only the `.ts` source (src under vitest); the source is written to be
 * valid JavaScript as it stands, so either file works. The path goes up and back into `sandbox/`
 * because the bundled CLI runs this module from a sibling directory (dist/bundle, see
 * scripts/bundle-cli.mjs), where dist/sandbox is still one level up.
 */
export function sandboxInitSource(): Promise<string> {
  cached ??= readFile(new URL('../sandbox/sandbox-init.js', import.meta.url), 'utf8').catch(() =>
    readFile(new URL('../sandbox/sandbox-init.ts', import.meta.url), 'utf8'),
  );
  return cached;
}
