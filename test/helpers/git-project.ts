import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Writes `files` (path → text) under `dir`, making directories as needed. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/** Runs git in `dir` as a fixed author at a fixed time, so commit ids are the same every run. */
export function gitIn(dir: string, args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z' },
  });
}

/** A git repository at `dir` with `files` as its first commit. */
export function gitProject(dir: string, files: Record<string, string>, message = 'base'): string {
  writeFiles(dir, files);
  gitIn(dir, ['init', '-q', '-b', 'main']);
  gitIn(dir, ['add', '-A']);
  gitIn(dir, ['commit', '-qm', message]);
  return dir;
}

/** Commits `files` (a text, or null to delete) to the repository at `dir`; returns the commit id. */
export function commitFiles(dir: string, files: Record<string, string | null>, message: string): string {
  for (const [name, text] of Object.entries(files)) {
    if (text === null) gitIn(dir, ['rm', '-q', '--', name]);
    else writeFiles(dir, { [name]: text });
  }
  gitIn(dir, ['add', '-A']);
  gitIn(dir, ['commit', '-qm', message]);
  return gitIn(dir, ['rev-parse', 'HEAD']).trim();
}

/**
 * A test script printing TAP the way tape does (`# name` per test, assertions as test points, a
 * plan and tape's closing counts), for a project whose `npm test` is `node test.js`.
 */
export const TAPE_LIKE_HARNESS = `
let n = 0, failed = 0;
export function test(name, fn) {
  console.log('# ' + name);
  fn({ equal(actual, expected, msg) {
    n++;
    if (actual === expected) console.log('ok ' + n + ' ' + msg);
    else { failed++; console.log('not ok ' + n + ' ' + msg + '\\n  ---\\n    expected: ' + JSON.stringify(expected) + '\\n    actual: ' + JSON.stringify(actual) + '\\n  ...'); }
  } });
}
process.on('beforeExit', () => {
  console.log('\\n1..' + n + '\\n# tests ' + n + '\\n# pass  ' + (n - failed) + (failed ? '\\n# fail  ' + failed : '\\n\\n# ok'));
  process.exitCode = failed ? 1 : 0;
});
console.log('TAP version 13');
`;
