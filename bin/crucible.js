#!/usr/bin/env node
// The command's entry point. It lives outside dist/ so that `npx crucible` links a bin even when
// run before the first build (npx caches that link per project); the CLI itself is compiled there.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('crucible: dist/ is missing (fix: run `npm run build` first)\n');
  process.exit(2);
}
await import(main.href);
