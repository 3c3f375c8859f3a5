import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, type OnTestFinishedHandler } from 'vitest';

/** A fresh temp directory per call, removed after the test that made it. */
export function useTempDirs(): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'crucible-test-'));
    made.push(dir);
    return dir;
  };
}

/**
 * A fresh temp directory removed when the test that asked for it finishes: for tests that run
 * concurrently (`describe.concurrent`), where an afterEach would remove the directories of the
 * tests still running. `onTestFinished` is the one from the test's own context.
 */
export function tempDirOf(onTestFinished: (fn: OnTestFinishedHandler) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'crucible-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
