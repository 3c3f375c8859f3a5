/**
 * The library's entry points as a user imports them: by the package's name, through package.json
 * `exports`. The root is cheap (it loads no dependency and no part of Crucible until a function is
 * called); every subpath resolves to a built folder entry with the functions the docs name.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const ROOT = resolve('.');
const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; exports: Record<string, unknown> };

/** Runs `script` as an ES module inside this package (so it imports the package by its own name); returns the files it loaded. */
function loadsOf(script: string): { files: string[]; stdout: string } {
  const log = join(tempDir(), 'loads.txt');
  const r = spawnSync(process.execPath, ['--import', resolve('test', 'cli', 'helpers', 'record-loads.mjs'), '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CRUCIBLE_LOAD_LOG: log },
  });
  expect(r.status, r.stderr).toBe(0);
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => relative(ROOT, fileURLToPath(url)));
  return { files: [...new Set(files)].sort(), stdout: r.stdout };
}

describe(`import('${PACKAGE.name}')`, () => {
  it('loads the types, constants and errors only: no dependency and no other part of Crucible', () => {
    const { files, stdout } = loadsOf(`const m = await import('${PACKAGE.name}'); console.log(typeof m.executeRun, m.VERDICTS.join(','))`);
    expect(stdout.trim()).toBe('function PASS,FAIL,ERROR');
    expect(files).toContain('dist/index.js');
    expect(files.filter((f) => !/^dist\/(index|core\/errors)\.js$|^dist\/core\/types\/[\w-]+\.js$/.test(f))).toEqual([]);
  });

  it('loads a part on the first call of one of its functions, and the call works', () => {
    const { files, stdout } = loadsOf(`const m = await import('${PACKAGE.name}'); const bwrap = await m.detectBwrap(); console.log(typeof bwrap.ok)`);
    expect(stdout.trim()).toBe('boolean');
    expect(files).toContain('dist/infra/sandbox/index.js');
    expect(files.some((f) => f.startsWith('dist/engine/'))).toBe(false);
  });

  it('resolves every subpath entry to a built folder entry with the functions the docs name', () => {
    const expected: Record<string, string[]> = {
      config: ['loadTaskSet', 'taskSetJsonSchema'],
      tasks: ['selectTasks'],
      engine: ['executeRun', 'compareRuns'],
      agents: ['resolveAgent', 'loadAgentCatalog', 'profileHash'],
      sandbox: ['createExecutor', 'resolveSandbox'],
      gateway: ['startGateway', 'loadPricing'],
      store: ['openHistory'],
      report: ['writeReports'],
      stats: ['wilson', 'passAtK', 'pairedComparison'],
      audit: ['loadRegistry', 'judgeAudit'],
      diagnostics: ['runFuzz', 'shippedCatalog'],
      manifest: ['verifyRunDir', 'canonicalJson'],
      redact: ['redactText', 'redactArgv'],
      trace: ['verifyChain', 'replayEvents'],
      guard: ['startGuard', 'guardCounts'],
      pack: ['createPack', 'loadTrustPolicy'],
      distributed: ['openQueueRunner', 'parseQueueUrl'],
    };
    const subpaths = Object.keys(PACKAGE.exports)
      .filter((k) => k !== '.' && k !== './package.json')
      .map((k) => k.slice(2));
    expect(subpaths.sort()).toEqual(Object.keys(expected).sort());
    const script = `const out = {}; for (const s of ${JSON.stringify(subpaths)}) { const m = await import('${PACKAGE.name}/' + s); out[s] = Object.keys(m).filter((k) => typeof m[k] === 'function'); } console.log(JSON.stringify(out));`;
    const exported = JSON.parse(loadsOf(script).stdout) as Record<string, string[]>;
    for (const [subpath, names] of Object.entries(expected)) expect(exported[subpath], subpath).toEqual(expect.arrayContaining(names));
  });
});
