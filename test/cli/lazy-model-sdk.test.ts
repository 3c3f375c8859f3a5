import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const bundleDir = resolve('dist', 'bundle');

/** Whether a file of the built CLI holds code of the model SDK (`ai`, `@ai-sdk/*`), by its source map. */
function holdsModelSdk(file: string): boolean {
  const map = `${file}.map`;
  if (!existsSync(map)) return false;
  const { sources } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] };
  return sources.some((s) => /node_modules\/(ai|@ai-sdk\/[^/]+)\//.test(s));
}

describe('the CLI loads the model SDK only for model agents', () => {
  it('a run of a reference agent (nop) never loads the chunk that holds `ai`', () => {
    if (!existsSync('dist/cli/main.js')) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
    // The detection itself works: the SDK is in the build, in a chunk of its own.
    expect(readdirSync(bundleDir).some((name) => name.endsWith('.js') && holdsModelSdk(join(bundleDir, name)))).toBe(true);
    expect(holdsModelSdk(resolve('dist', 'cli', 'main.js'))).toBe(false);

    const dir = tempDir();
    const log = join(dir, 'loads.txt');
    const result = spawnSync(
      process.execPath,
      ['--import', resolve('test', 'cli', 'helpers', 'record-loads.mjs'), CLI, 'run', 'examples/tasks.yaml', '--agent', 'nop', '--task', 'js-slugify'].concat([
        '--sandbox',
        'local',
        '--out',
        join(dir, 'state'),
        '--quiet',
      ]),
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: 'true', CRUCIBLE_LOAD_LOG: log }, timeout: 300_000 },
    );
    // nop changes nothing: its attempt FAILs, which exits 1; anything else is not the run we meant.
    expect(result.status, result.stderr).toBe(1);
    const loaded = readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'))
      .map((url) => fileURLToPath(url));
    // The run really loaded the engine's chunks (the log is not empty for another reason).
    expect(loaded.some((file) => file.startsWith(bundleDir))).toBe(true);
    expect(loaded.filter((file) => holdsModelSdk(file) || /node_modules\/(ai|@ai-sdk)\//.test(file))).toEqual([]);
  });
});
