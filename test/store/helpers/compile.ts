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
 * (and the attempt fixtures) are transpiled as-is into `dir`, laid out as under src/ so that the
 * store's imports of src/core/types (the record's derived views) resolve.
 */
export function compileStoreInto(dir: string): { storeEntry: string; fixturesEntry: string } {
  const storeOut = join(dir, 'infra', 'store');
  const helpersOut = join(dir, 'helpers');
  mkdirSync(helpersOut, { recursive: true });
  for (const folder of [join('infra', 'store'), join('core', 'types')]) {
    const from = join(REPO, 'src', folder);
    const to = join(dir, folder);
    mkdirSync(to, { recursive: true });
    for (const file of readdirSync(from).filter((f) => f.endsWith('.ts'))) transpile(join(from, file), join(to, basename(file, '.ts') + '.js'));
  }
  transpile(join(REPO, 'test', 'store', 'helpers', 'attempts.ts'), join(helpersOut, 'attempts.js'));
  // Bare imports (better-sqlite3) resolve by walking up to a node_modules folder.
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { storeEntry: join(storeOut, 'index.js'), fixturesEntry: join(helpersOut, 'attempts.js') };
}
