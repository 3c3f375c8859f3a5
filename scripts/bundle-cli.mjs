#!/usr/bin/env node
// Bundles the CLI for start-up: `npm run build` runs this after tsc. Loading ~190 compiled modules
// plus ~150 files of zod, yaml, fast-xml-parser and commander one by one cost Node more than the
// code itself; a few chunks load in a fraction of that (docs/BENCHMARKS.md has the numbers).
//
// Layout, one directory below dist/ (tsc's own output sits one to three below, by layer), so the
// modules that find files relative to themselves look in both places: version.ts, pricing.ts and
// web-assets.ts walk up to the package's root; forwarder-source.ts and docker-runtime.ts try
// their own directory, then dist/infra/sandbox as seen from dist/bundle:
//   dist/cli/main.js    the entry (replaces tsc's main.js; bin/crucible.js and the tests run it)
//   dist/bundle/*.js    chunks; each command's dynamic import stays a chunk loaded only by it, so
//                       `run` never loads the dashboard server or the AI SDK.
// Everything else tsc wrote stays: dist/index.js and the .d.ts files are the library export.
// A later tsc-only build (`npx tsc -p tsconfig.build.json`) writes the unbundled main.js back,
// which then imports tsc's modules: never a stale bundle.
// better-sqlite3 stays external (a native addon, loaded from node_modules), and so does dockerode
// (its ssh2 and gRPC dependencies load optional native code and files relative to themselves), and
// bullmq and ioredis (only `run --queue` and `worker` load them; kept as their authors ship them).
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(join(dist, 'bundle'), { recursive: true, force: true });
const bundle = await rolldown({
  input: join(root, 'src', 'cli', 'main.ts'),
  cwd: root,
  platform: 'node',
  tsconfig: join(root, 'tsconfig.build.json'),
  external: [/^node:/, 'better-sqlite3', 'dockerode', 'bullmq', 'ioredis'],
  // A layer's index.ts only re-exports: importing one name through it must not run the whole
  // layer (the CLI's start imports the reporters' names through features/report/index.ts).
  treeshake: { moduleSideEffects: (id) => !/[\\/]src[\\/].+[\\/]index\.ts$/.test(id) },
  logLevel: 'warn',
});
try {
  await bundle.write({
    dir: dist,
    format: 'esm',
    entryFileNames: 'cli/main.js',
    chunkFileNames: 'bundle/[name]-[hash].js',
    // What the program needs before any command loads (`--version`, `--help`): the version and the
    // reporters' names. Left to the splitter they would share chunks with the engine and the
    // evidence code, and every start would load those.
    codeSplitting: {
      groups: [{ name: 'start', test: /src[\\/](core[\\/]version|features[\\/]report[\\/]reporter)\.ts$/ }],
    },
    sourcemap: true,
  });
} finally {
  await bundle.close();
}
