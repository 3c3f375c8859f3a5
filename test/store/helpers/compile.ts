import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

function transpile(source: string, target: string): void {
  const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
    fileName: source,
  });
  writeFileSync(target, outputText);
}

/**
 * Child processes cannot load TypeScript on Node 20 without a loader, so the real store sources
 * (and the attempt fixtures) are transpiled as-is into `dir`. The store imports only types from
 * src/core/types, which transpiling erases, so the store folder alone is enough.
 */
export function compileStoreInto(dir: string): { storeEntry: string; fixturesEntry: string } {
  const storeOut = join(dir, 'store');
  const helpersOut = join(dir, 'helpers');
  mkdirSync(storeOut, { recursive: true });
  mkdirSync(helpersOut, { recursive: true });
  const storeSrc = join(REPO, 'src', 'infra', 'store');
  for (const file of readdirSync(storeSrc).filter((f) => f.endsWith('.ts'))) {
    transpile(join(storeSrc, file), join(storeOut, basename(file, '.ts') + '.js'));
  }
  transpile(join(REPO, 'test', 'store', 'helpers', 'attempts.ts'), join(helpersOut, 'attempts.js'));
  // Bare imports (better-sqlite3) resolve by walking up to a node_modules folder.
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { storeEntry: join(storeOut, 'index.js'), fixturesEntry: join(helpersOut, 'attempts.js') };
}
