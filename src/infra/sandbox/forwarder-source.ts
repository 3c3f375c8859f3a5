import { readFile } from 'node:fs/promises';

let cached: Promise<string> | undefined;

/**
 * The text of gateway-forwarder, which the bwrap sandbox's init runs with `node -e`. Beside this
 * module sits the compiled `.js` (dist) or only the `.ts` source (src under vitest); the source is
 * written to be valid JavaScript as it stands, so either file works. The bundled CLI runs this
 * module from dist/bundle (see scripts/bundle-cli.mjs), so the file is also looked for in
 * dist/infra/sandbox from there.
 */
export function gatewayForwarderSource(): Promise<string> {
  cached ??= readFirst(['./gateway-forwarder.js', '../infra/sandbox/gateway-forwarder.js', './gateway-forwarder.ts']);
  return cached;
}

/** The first of `paths` (relative to this module) that reads. */
export async function readFirst(paths: string[]): Promise<string> {
  let last: unknown;
  for (const path of paths) {
    try {
      return await readFile(new URL(path, import.meta.url), 'utf8');
    } catch (error) {
      last = error;
    }
  }
  throw last;
}
