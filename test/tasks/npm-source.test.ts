import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/load-taskset.js';
import { materializeRepo } from '../../src/domain/tasks/index.js';
import { layNpmTests, npmOraclePatch, npmTarball, NpmSourceError } from '../../src/domain/tasks/npm-source.js';
import type { NpmPackageRef } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

/** One tar entry as a test writes it: type '0' file, '5' dir, '2' symlink, '3' char device. */
interface Entry {
  name: string;
  type?: '0' | '5' | '2' | '3';
  body?: string;
  link?: string;
}

/** A ustar archive, gzipped: the tarballs the stub registry serves, hostile ones included. */
function tgz(entries: Entry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const h = Buffer.alloc(512);
    h.write(e.name, 0, 100, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write(e.type ?? '0', 156);
    if (e.link) h.write(e.link, 157, 100);
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(h, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

const sri = (data: Buffer): string => `sha512-${createHash('sha512').update(data).digest('base64')}`;

/** A registry stub: name → version → tarball; `lie` versions advertise another tarball's hash. */
class Registry {
  server!: Server;
  tarballRequests = 0;
  packages = new Map<string, Map<string, { data: Buffer; integrity: string }>>();
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  publish(name: string, version: string, entries: Entry[], advertised?: string): Buffer {
    const data = tgz(entries);
    const versions = this.packages.get(name) ?? new Map();
    versions.set(version, { data, integrity: advertised ?? sri(data) });
    this.packages.set(name, versions);
    return data;
  }
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = decodeURIComponent(req.url ?? '');
      const tarball = path.match(/^\/-\/(.+)-(\d[^/]*)\.tgz$/);
      if (tarball) {
        const found = this.packages.get(tarball[1] as string)?.get(tarball[2] as string);
        this.tarballRequests++;
        // Slow enough that concurrent callers overlap: fetch-once is then really tested.
        setTimeout(() => (found ? res.end(found.data) : res.writeHead(404).end()), 50);
        return;
      }
      const name = path.slice(1);
      const versions = this.packages.get(name);
      if (!versions) return void res.writeHead(404).end('{}');
      const body = {
        name,
        versions: Object.fromEntries([...versions].map(([v, p]) => [v, { dist: { integrity: p.integrity, tarball: `${this.url}/-/${name}-${v}.tgz` } }])),
      };
      res.setHeader('content-type', 'application/json').end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }
}

const registry = new Registry();
beforeAll(() => registry.start());
afterAll(() => new Promise<void>((resolve) => registry.server.close(() => resolve())));

const tmp = useTempDirs();
const ref = (name: string, version: string, integrity?: string): NpmPackageRef => ({
  name,
  version,
  registry: registry.url,
  ...(integrity ? { integrity } : {}),
});

async function errorOf(promise: Promise<unknown>): Promise<NpmSourceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NpmSourceError);
  return error as NpmSourceError;
}

describe('npm repo source', () => {
  const lib = (v: string): Entry[] => [
    { name: 'package/', type: '5' },
    { name: 'package/package.json', body: `{"name":"lib","version":"${v}"}` },
    { name: 'package/lib/index.js', body: v === '1.0.0' ? 'module.exports = 1;\n' : 'module.exports = 2;\n' },
    { name: 'package/test/index.js', body: `// tests of ${v}\n` },
    ...(v === '1.0.1' ? [{ name: 'package/test/new.js', body: 'new test\n' }] : []),
  ];
  beforeAll(() => {
    registry.publish('lib', '1.0.0', lib('1.0.0'));
    registry.publish('lib', '1.0.1', lib('1.0.1'));
  });

  it('unpacks the verified tarball into the workspace, package/ stripped, and keeps it in the cache', async () => {
    const [dest, cache] = [tmp(), tmp()];
    await materializeRepo({ kind: 'npm', package: ref('lib', '1.0.0') }, dest, cache);
    expect(readFileSync(join(dest, 'lib/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    expect(readdirSync(dest).sort()).toEqual(['lib', 'package.json', 'test']);
    const cached = readdirSync(join(cache, 'npm'), { recursive: true }).map(String);
    expect(cached.some((f) => f.endsWith('lib/1.0.0.tgz'))).toBe(true);
  });

  it('fetches a tarball once when many attempts ask for it at the same time, then serves it from the cache', async () => {
    registry.publish('busy', '2.0.0', [{ name: 'package/a.js', body: 'a' }]);
    const cache = tmp();
    const before = registry.tarballRequests;
    const all = await Promise.all(Array.from({ length: 6 }, () => npmTarball(ref('busy', '2.0.0'), 'repo', cache)));
    expect(registry.tarballRequests - before).toBe(1);
    expect(new Set(all.map((b) => sri(b))).size).toBe(1);
    await npmTarball(ref('busy', '2.0.0'), 'repo', cache);
    expect(registry.tarballRequests - before).toBe(1);
  });

  it('refuses a tarball that does not match the registry integrity, and caches nothing', async () => {
    registry.publish('liar', '1.0.0', [{ name: 'package/a.js', body: 'evil' }], sri(Buffer.from('something else')));
    const cache = tmp();
    const error = await errorOf(npmTarball(ref('liar', '1.0.0'), 'repo', cache));
    expect(error.field).toBe('repo.npm');
    expect(error.message).toMatch(/liar@1\.0\.0: the tarball .* hashes to sha512-.*, not the registry's dist\.integrity/);
    expect(existsSync(join(cache, 'npm'))).toBe(false);
  });

  it('refuses a registry whose integrity differs from the pinned one, naming the integrity field', async () => {
    const pinned = sri(Buffer.from('the bytes the task author saw'));
    const error = await errorOf(npmTarball(ref('lib', '1.0.0', pinned), 'tests_from', tmp()));
    expect(error.field).toBe('tests_from.integrity');
    expect(error.message).toContain(`not the pinned ${pinned}`);
    expect(error.message).toContain('fix: ');
  });

  it('a pinned integrity that matches is accepted, also from the cache', async () => {
    const cache = tmp();
    const data = await npmTarball(ref('lib', '1.0.1'), 'repo', cache);
    await expect(npmTarball(ref('lib', '1.0.1', sri(data)), 'repo', cache)).resolves.toEqual(data);
    const other = sri(Buffer.from('x'));
    expect((await errorOf(npmTarball(ref('lib', '1.0.1', other), 'repo', cache))).field).toBe('repo.integrity');
  });

  it('names a missing version and a missing package as the task field to fix', async () => {
    const missing = await errorOf(npmTarball(ref('lib', '9.9.9'), 'repo', tmp()));
    expect(missing.message).toMatch(
      /^repo\.npm lib@9\.9\.9: no such version in http:\/\/127\.0\.0\.1:\d+ \(fix: name a published version \(npm view lib versions\)\)$/,
    );
    const unknown = await errorOf(npmTarball(ref('nope', '1.0.0'), 'oracle', tmp()));
    expect(unknown.field).toBe('oracle.from_npm');
    expect(unknown.message).toContain('answers 404');
  });

  it('re-fetches a damaged cache entry instead of using it', async () => {
    const cache = tmp();
    await npmTarball(ref('lib', '1.0.0'), 'repo', cache);
    const [file] = readdirSync(join(cache, 'npm'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('lib/1.0.0.tgz'));
    writeFileSync(join(cache, 'npm', file as string), 'tampered');
    const before = registry.tarballRequests;
    const data = await npmTarball(ref('lib', '1.0.0'), 'repo', cache);
    expect(registry.tarballRequests - before).toBe(1);
    expect(data.toString()).not.toBe('tampered');
  });

  describe('hostile tarball entries are refused and nothing lands outside the workspace', () => {
    const cases: Array<[string, Entry, RegExp]> = [
      ['a ../ path', { name: 'package/../../escaped.txt', body: 'x' }, /"\.\." in the path/],
      ['an absolute path', { name: '/tmp/escaped.txt', body: 'x' }, /absolute path/],
      ['a symlink', { name: 'package/link', type: '2', link: '/etc' }, /a symbolic link/],
      ['a character device', { name: 'package/dev', type: '3' }, /a character device/],
      ['an entry outside package/', { name: 'other/file.txt', body: 'x' }, /outside package\//],
    ];
    it.each(cases)('%s', async (label, entry, why) => {
      const name = `hostile-${label.replace(/\W+/g, '-')}`;
      registry.publish(name, '1.0.0', [{ name: 'package/ok.js', body: 'ok' }, entry, { name: 'package/after.js', body: 'after' }]);
      const root = tmp();
      const dest = join(root, 'ws');
      mkdirSync(dest);
      const error = await errorOf(materializeRepo({ kind: 'npm', package: ref(name, '1.0.0') }, dest, join(root, 'cache')));
      expect(error.field).toBe('repo.npm');
      expect(error.message).toMatch(why);
      expect(readdirSync(dest)).toEqual([]);
      expect(readdirSync(root).sort()).toEqual(['cache', 'ws']);
    });
  });

  it('tests_from replaces the listed paths with the later version, removing what it removed', async () => {
    const [dest, cache] = [tmp(), tmp()];
    await materializeRepo({ kind: 'npm', package: ref('lib', '1.0.0') }, dest, cache);
    writeFileSync(join(dest, 'test/stale.js'), 'a test the later version dropped\n');
    await layNpmTests({ package: ref('lib', '1.0.1'), paths: ['test'] }, dest, cache);
    expect(readdirSync(join(dest, 'test')).sort()).toEqual(['index.js', 'new.js']);
    expect(readFileSync(join(dest, 'test/index.js'), 'utf8')).toBe('// tests of 1.0.1\n');
    expect(readFileSync(join(dest, 'lib/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    const error = await errorOf(layNpmTests({ package: ref('lib', '1.0.1'), paths: ['test', 'spec'] }, dest, cache));
    expect(error.message).toMatch(/^tests_from\.paths\[1\] spec is not in lib@1\.0\.1/);
  });

  it('the from_npm oracle is the diff of the listed paths between the two versions, and git applies it', async () => {
    const [dest, cache] = [tmp(), tmp()];
    await materializeRepo({ kind: 'npm', package: ref('lib', '1.0.0') }, dest, cache);
    const patch = await npmOraclePatch(ref('lib', '1.0.0'), { package: ref('lib', '1.0.1'), paths: ['lib'] }, cache);
    expect(patch).toContain('--- a/lib/index.js');
    expect(patch).not.toContain('test/');
    execFileSync('git', ['apply', '-'], { cwd: dest, input: patch });
    expect(readFileSync(join(dest, 'lib/index.js'), 'utf8')).toBe('module.exports = 2;\n');
    const same = await errorOf(npmOraclePatch(ref('lib', '1.0.0'), { package: ref('lib', '1.0.0'), paths: ['lib'] }, cache));
    expect(same.message).toMatch(/^oracle\.paths lib: the same in lib@1\.0\.0 and lib@1\.0\.0/);
  });
});

describe('npm fields of a task set', () => {
  const write = (dir: string, task: string): string => {
    const file = join(dir, 'tasks.yaml');
    writeFileSync(file, `tasks:\n  - id: t\n    instruction: fix it\n    tests: { command: "true", fail_to_pass: [a] }\n${task}`);
    return file;
  };

  it('loads repo.npm, tests_from and oracle.from_npm; the tests_from paths are guarded as tests', () => {
    const file = write(
      tmp(),
      [
        '    repo: { npm: "@scope/lib@1.0.0", registry: "http://127.0.0.1:9/" }',
        '    tests_from: { npm: "@scope/lib@1.0.1", paths: [test/parse.js] }',
        '    oracle: { from_npm: "@scope/lib@1.0.1", paths: [lib] }',
        '',
      ].join('\n'),
    );
    const [task] = loadTaskSet(file).tasks;
    expect(task?.repo).toEqual({ kind: 'npm', package: { name: '@scope/lib', version: '1.0.0', registry: 'http://127.0.0.1:9' } });
    expect(task?.testsFrom).toEqual({ package: { name: '@scope/lib', version: '1.0.1', registry: 'http://127.0.0.1:9' }, paths: ['test/parse.js'] });
    expect(task?.oracle).toEqual({ patch: '', fromNpm: { package: { name: '@scope/lib', version: '1.0.1', registry: 'http://127.0.0.1:9' }, paths: ['lib'] } });
    expect(task?.tests.testPaths).toContain('test/parse.js');
  });

  it('refuses oracle.from_npm on a repo that is not an npm package, a range for a version, and a path with ..', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'repo'));
    expect(() => loadTaskSet(write(dir, '    repo: { path: repo }\n    oracle: { from_npm: "lib@1.0.1", paths: [lib] }\n'))).toThrow(
      /oracle\.from_npm.*needs repo: \{ npm: … \}/,
    );
    expect(() => loadTaskSet(write(dir, '    repo: { npm: "lib@^1.0.0" }\n'))).toThrow(/repo/);
    expect(() => loadTaskSet(write(dir, '    repo: { npm: "lib@1.0.0" }\n    tests_from: { npm: "lib@1.0.1", paths: [../x] }\n'))).toThrow(
      /tests_from\.paths\[0\].*not a path inside the package/,
    );
  });
});

describe('registry credentials', () => {
  it('refuses a registry URL with user:password@ in one line that does not repeat the secret', async () => {
    const { npmPackageRef } = await import('../../src/domain/config/npm-fields.js');
    expect(() => npmPackageRef('qs@6.12.2', undefined, 'https://me:hunter2@registry.example/')).toThrow(/repo\.registry: the registry URL carries credentials/);
    try {
      npmPackageRef('qs@6.12.2', undefined, 'https://me:hunter2@registry.example/');
    } catch (error) {
      expect(String(error)).not.toContain('hunter2');
    }
    expect(npmPackageRef('qs@6.12.2', undefined, 'https://registry.example/').registry).toBe('https://registry.example');
  });
});
