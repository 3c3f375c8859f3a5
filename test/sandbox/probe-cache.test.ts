import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectBwrap } from '../../src/infra/sandbox/index.js';
import { findOnPath } from '../../src/infra/sandbox/find-on-path.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const realBwrap = findOnPath('bwrap', process.env.PATH);

/** A `bwrap` on its own PATH entry that logs each start, then runs the real one. */
function loggingBwrap(dir: string): { searchPath: string; log: string; script: string } {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(dir, 'starts.log');
  const script = join(bin, 'bwrap');
  writeFileSync(script, `#!/bin/sh\necho started >> ${JSON.stringify(log)}\nexec ${JSON.stringify(realBwrap)} "$@"\n`);
  chmodSync(script, 0o755);
  return { searchPath: bin, log, script };
}

const starts = (log: string): number => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);

describe.skipIf(realBwrap === undefined)('the bwrap probe, remembered per machine and version', () => {
  it('probes once, then answers from the state directory until the bwrap binary changes', async () => {
    const dir = tempDir();
    const { searchPath, log, script } = loggingBwrap(dir);
    const cacheFile = join(dir, 'state', 'cache', 'sandbox-probe.json');
    // No state directory yet: nothing is created, the next call probes again.
    await detectBwrap({ searchPath, cacheFile });
    expect(existsSync(join(dir, 'state'))).toBe(false);
    mkdirSync(join(dir, 'state'));
    expect(starts(log)).toBe(2);

    const first = await detectBwrap({ searchPath, cacheFile });
    expect(first).toMatchObject({ ok: true, path: script });
    // `--version` and one real sandbox.
    expect(starts(log)).toBe(4);
    expect(existsSync(cacheFile)).toBe(true);

    expect(await detectBwrap({ searchPath, cacheFile })).toEqual(first);
    expect(starts(log)).toBe(4);

    // An upgrade replaces the binary: the remembered verdict no longer holds.
    appendFileSync(script, '# upgraded\n');
    expect(await detectBwrap({ searchPath, cacheFile })).toMatchObject({ ok: true, path: script });
    expect(starts(log)).toBe(6);

    // Without a cache file every call probes.
    await detectBwrap({ searchPath });
    expect(starts(log)).toBe(8);
  });

  it('never remembers a failure: a broken bwrap is probed again every time', async () => {
    const dir = tempDir();
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const log = join(dir, 'starts.log');
    writeFileSync(join(bin, 'bwrap'), `#!/bin/sh\necho started >> ${JSON.stringify(log)}\nexit 1\n`);
    chmodSync(join(bin, 'bwrap'), 0o755);
    mkdirSync(join(dir, 'state'));
    const cacheFile = join(dir, 'state', 'cache', 'sandbox-probe.json');
    expect((await detectBwrap({ searchPath: bin, cacheFile })).ok).toBe(false);
    expect((await detectBwrap({ searchPath: bin, cacheFile })).ok).toBe(false);
    expect(starts(log)).toBe(4);
    expect(existsSync(cacheFile)).toBe(false);
  });
});
