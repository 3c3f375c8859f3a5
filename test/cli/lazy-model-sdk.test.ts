import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const bundleDir = resolve('dist', 'bundle');

/** Whether a file of the built CLI holds code of the model SDK (`ai`, `@ai-sdk/*`), by its source map. */
function holdsModelSdk(file: string): boolean {
  return sdkPackages(file).length > 0;
}

const PROVIDER_PACKAGES = [
  '@ai-sdk/amazon-bedrock',
  '@ai-sdk/anthropic',
  '@ai-sdk/azure',
  '@ai-sdk/google-vertex',
  '@ai-sdk/groq',
  '@ai-sdk/openai',
  '@ai-sdk/openai-compatible',
  '@openrouter/ai-sdk-provider',
];

/** The model SDK packages (`ai`, `@ai-sdk/*`, `@openrouter/*`) whose code a built file holds, by its source map. */
function sdkPackages(file: string): string[] {
  const map = `${file}.map`;
  if (!existsSync(map)) return [];
  const { sources } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] };
  const names = sources.map((s) => /node_modules\/(ai|@ai-sdk\/[^/]+|@openrouter\/[^/]+)\//.exec(s)?.[1]).filter((n): n is string => n !== undefined);
  return [...new Set(names)];
}

/** The files a CLI run loaded, from the log record-loads.mjs wrote. */
function loadedFiles(log: string): string[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url));
}

/** `crucible run examples/tasks.yaml --task js-slugify --sandbox local` with `agentArgs`, in a process that logs every module it loads to `log`. */
function runRecordingLoads(dir: string, log: string, agentArgs: string[]): SpawnSyncReturns<string> {
  return spawnSync(
    process.execPath,
    [
      '--import',
      resolve('test', 'cli', 'helpers', 'record-loads.mjs'),
      CLI,
      'run',
      'examples/tasks.yaml',
      ...agentArgs,
      '--task',
      'js-slugify',
      '--sandbox',
      'local',
      '--out',
      join(dir, 'state'),
      '--quiet',
    ],
    { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: 'true', CRUCIBLE_LOAD_LOG: log }, timeout: 300_000 },
  );
}

describe('the CLI loads the model SDK only for model agents', () => {
  it('a run of a reference agent (nop) never loads the chunk that holds `ai`', () => {
    if (!existsSync('dist/cli/main.js')) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
    // The detection itself works: the SDK is in the build, in a chunk of its own.
    expect(readdirSync(bundleDir).some((name) => name.endsWith('.js') && holdsModelSdk(join(bundleDir, name)))).toBe(true);
    expect(holdsModelSdk(resolve('dist', 'cli', 'main.js'))).toBe(false);

    const dir = tempDir();
    const log = join(dir, 'loads.txt');
    const result = runRecordingLoads(dir, log, ['--agent', 'nop']);
    // nop changes nothing: its attempt FAILs, which exits 1; anything else is not the run we meant.
    expect(result.status, result.stderr).toBe(1);
    const loaded = loadedFiles(log);
    // The run really loaded the engine's chunks (the log is not empty for another reason).
    expect(loaded.some((file) => file.startsWith(bundleDir))).toBe(true);
    expect(loaded.filter((file) => holdsModelSdk(file) || /node_modules\/(ai|@ai-sdk)\//.test(file))).toEqual([]);
  });

  it('a run of the built-in agent on one provider loads that provider package and no other', () => {
    const dir = tempDir();
    const log = join(dir, 'loads.txt');
    // A cassette with no exchanges: the run needs no key and no network, yet builds its model
    // (the one request misses the recording and the attempt errors, after the SDK is loaded).
    const cassettes = join(dir, 'cassettes');
    const agent = 'groq:llama-3.3-70b-versatile';
    mkdirSync(join(cassettes, 'js-slugify', encodeURIComponent(agent)), { recursive: true });
    const header = { type: 'cassette', version: 1, key: `js-slugify/${agent}/0`, recordedAt: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(cassettes, 'js-slugify', encodeURIComponent(agent), '0.jsonl'), `${JSON.stringify(header)}\n`);
    const result = runRecordingLoads(dir, log, ['--model', agent, '--replay', cassettes]);
    // The attempt errors on the replay miss (exit 1), which proves a request was made.
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toContain('replay miss');
    const packages = new Set(loadedFiles(log).flatMap(sdkPackages));
    expect(packages.has('@ai-sdk/groq')).toBe(true);
    expect(PROVIDER_PACKAGES.filter((name) => name !== '@ai-sdk/groq' && packages.has(name))).toEqual([]);
  });
});

describe('the CLI loads no command before one is chosen', () => {
  /** The files a start of the CLI with `args` loaded, after checking it exited 0 and printed `expected`. */
  function startLoads(args: string[], expected: RegExp): string[] {
    const dir = tempDir();
    const log = join(dir, 'loads.txt');
    const result = spawnSync(process.execPath, ['--import', resolve('test', 'cli', 'helpers', 'record-loads.mjs'), CLI, ...args], {
      encoding: 'utf8',
      env: { ...process.env, CRUCIBLE_LOAD_LOG: log },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(expected);
    return loadedFiles(log);
  }

  /** The loaded files of the built CLI that hold code of the engine, the evidence or the store (by source map). */
  function heavy(loaded: string[]): string[] {
    return loaded.filter((file) => sourcesOf(file).some((s) => /src\/(engine|domain\/evidence|infra\/store)\//.test(s)));
  }

  it('`crucible --version` loads only the start chunks: no engine, no evidence code, no SQLite, not even the program', () => {
    const loaded = startLoads(['--version'], /^\d+\.\d+\.\d+\n$/);
    expect(loaded.some((file) => file.startsWith(bundleDir))).toBe(true);
    expect(loaded.filter((file) => file.includes('node_modules'))).toEqual([]);
    expect(heavy(loaded)).toEqual([]);
    // The answer comes before commander and the commands' declarations load.
    expect(loaded.filter((file) => sourcesOf(file).some((s) => /src\/cli\/(program|commands\/)/.test(s)))).toEqual([]);
  });

  it.each(['--help', 'run --help', 'diagnostics fuzz --help'])('`crucible %s` loads the program but no command action, engine or SQLite', (line) => {
    const loaded = startLoads(line.split(' '), /^Usage: crucible /);
    expect(loaded.filter((file) => file.includes('node_modules'))).toEqual([]);
    expect(heavy(loaded)).toEqual([]);
    // Only the declarations (commands/*.command.ts), never an action module (commands/<name>.ts).
    const actions = loaded.flatMap(sourcesOf).filter((s) => /src\/cli\/commands\/(?!.*\.command\.ts$)/.test(s));
    expect(actions).toEqual([]);
  });
});

/** The source files a built file holds, by its source map (none without one). */
function sourcesOf(file: string): string[] {
  const map = `${file}.map`;
  if (!existsSync(map)) return [];
  return (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources;
}
