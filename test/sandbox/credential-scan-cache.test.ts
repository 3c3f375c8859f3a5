import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

type CredentialPaths = typeof import('../../src/infra/sandbox/credential-paths.js');

/** The module as a new process loads it: nothing walked yet. */
async function freshProcess(): Promise<CredentialPaths> {
  vi.resetModules();
  return import('../../src/infra/sandbox/credential-paths.js');
}

/** A toolchain root with a credential two levels down. */
function toolchain(): { root: string; cacheFile: string } {
  const dir = tempDir();
  const root = join(dir, 'tool');
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc', 'npmrc'), '//registry/:_authToken=secret\n');
  mkdirSync(join(dir, 'state'));
  return { root, cacheFile: join(dir, 'state', 'cache', 'credential-scan.json') };
}

const pathsOf = (hits: ReadonlyArray<{ path: string }>): string[] => hits.map((h) => h.path).sort();

describe('the credential walk remembered across processes', () => {
  it('a later process takes the remembered walk while every directory it read is unchanged, and walks again once one changes', async () => {
    const { root, cacheFile } = toolchain();
    const first = await freshProcess();
    first.rememberCredentialScans(cacheFile);
    expect(pathsOf(first.credentialsWithin(root))).toEqual([join(root, 'etc', 'npmrc')]);
    expect(existsSync(cacheFile)).toBe(true);

    // What the file says is what a later process uses, without walking (a planted entry shows it).
    const saved = JSON.parse(readFileSync(cacheFile, 'utf8')) as { roots: Record<string, { hits: Array<{ path: string; isDir: boolean }> }> };
    saved.roots[root]?.hits.push({ path: join(root, 'planted'), isDir: false });
    writeFileSync(cacheFile, JSON.stringify(saved));
    const second = await freshProcess();
    second.rememberCredentialScans(cacheFile);
    expect(pathsOf(second.credentialsWithin(root))).toEqual([join(root, 'etc', 'npmrc'), join(root, 'planted')]);

    // A credential added since changes its directory's mtime: the next process walks again and finds it.
    writeFileSync(join(root, 'etc', '.netrc'), 'machine x password y\n');
    utimesSync(join(root, 'etc'), new Date(), new Date(Date.now() + 5_000));
    const third = await freshProcess();
    third.rememberCredentialScans(cacheFile);
    expect(pathsOf(third.credentialsWithin(root))).toEqual([join(root, 'etc', '.netrc'), join(root, 'etc', 'npmrc')]);
  });

  it('a root missing when walked is walked again once it exists', async () => {
    const { root, cacheFile } = toolchain();
    const missing = join(root, 'later');
    const first = await freshProcess();
    first.rememberCredentialScans(cacheFile);
    expect(first.credentialsWithin(missing)).toEqual([]);
    mkdirSync(join(missing, '.ssh'), { recursive: true });
    const second = await freshProcess();
    second.rememberCredentialScans(cacheFile);
    expect(second.credentialsWithin(missing)).toEqual([{ path: join(missing, '.ssh'), isDir: true }]);
  });

  it("a file written by another version, or not the cache's shape, is not read", async () => {
    const { root, cacheFile } = toolchain();
    const first = await freshProcess();
    first.rememberCredentialScans(cacheFile);
    first.credentialsWithin(root);
    const saved = JSON.parse(readFileSync(cacheFile, 'utf8')) as { version: string; roots: Record<string, { hits: unknown[] }> };
    saved.roots[root]?.hits.splice(0);
    writeFileSync(cacheFile, JSON.stringify({ ...saved, version: '0.0.0-other' }));
    const second = await freshProcess();
    second.rememberCredentialScans(cacheFile);
    expect(pathsOf(second.credentialsWithin(root))).toEqual([join(root, 'etc', 'npmrc')]);

    writeFileSync(cacheFile, JSON.stringify({ ...saved, roots: { [root]: { hits: 'none', dirs: [] } } }));
    const third = await freshProcess();
    third.rememberCredentialScans(cacheFile);
    expect(pathsOf(third.credentialsWithin(root))).toEqual([join(root, 'etc', 'npmrc')]);
  });

  it('writes nothing where no state directory exists', async () => {
    const dir = tempDir();
    const cacheFile = join(dir, 'no-state', 'cache', 'credential-scan.json');
    const module = await freshProcess();
    module.rememberCredentialScans(cacheFile);
    module.credentialsWithin(dir);
    expect(existsSync(join(dir, 'no-state'))).toBe(false);
  });
});
