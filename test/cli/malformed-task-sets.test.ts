import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { tinyTaskSet } from './fixtures.js';

const tempDir = useTempDirs();

/**
 * Task sets broken one way each, so that every task of the run is broken: some are refused while
 * loading, others only by the preflight (the baseline test run, the repo fetch, the oracle patch).
 * Either way no agent runs, so there are no results: each ends in exit 2 with one line, and no
 * result table is printed before it.
 */
const MUTATIONS: Array<{ name: string; edit: (yaml: string, dir: string) => string; says: RegExp; agent?: string }> = [
  {
    name: 'a test command that does not exist',
    edit: (y) => y.replaceAll('command: sh check.sh', 'command: no-such-command'),
    says: /tests\.command: the test command could not start at the baseline.*not found/,
  },
  { name: 'a test command that writes no report', edit: (y) => y.replaceAll('command: sh check.sh', 'command: "true"'), says: /tests\.command/ },
  { name: 'a failing test command', edit: (y) => y.replaceAll('command: sh check.sh', 'command: "false"'), says: /tests\.command/ },
  { name: 'a fail_to_pass id the tests do not report', edit: (y) => y.replaceAll('[check::fixed]', '[check::fixd]'), says: /did you mean "check::fixed"/ },
  { name: 'a fail_to_pass id that already passes', edit: (y) => y.replaceAll('[check::fixed]', '[check::kept]'), says: /already passes at the baseline/ },
  {
    name: 'a pass_to_pass id the tests do not report',
    edit: (y) => y.replaceAll('pass_to_pass: all_others', 'pass_to_pass: [check::kep]'),
    says: /pass_to_pass\[0\]/,
  },
  {
    name: 'an oracle patch that does not apply',
    edit: (y, dir) => {
      writeFileSync(join(dir, 'stale.patch'), '--- a/value.txt\n+++ b/value.txt\n@@ -1 +1 @@\n-gone\n+right\n');
      return y.replaceAll('patch: fix.patch', 'patch: stale.patch');
    },
    says: /oracle\.patch: does not apply/,
    // The preflight tries the oracle's patch for a run of the oracle.
    agent: 'oracle',
  },
  {
    name: 'a git repo that cannot be fetched',
    edit: (y, dir) => y.replaceAll('repo: { path: repo }', `repo: { git: "file://${join(dir, 'nowhere')}", commit: 0123456789abcdef0123456789abcdef01234567 }`),
    says: /repo\.git: .*cannot clone/,
  },
  { name: 'a repo path that is missing', edit: (y) => y.replaceAll('{ path: repo }', '{ path: nowhere }'), says: /nowhere/ },
  { name: 'an empty fail_to_pass', edit: (y) => y.replaceAll('[check::fixed]', '[]'), says: /fail_to_pass/ },
  { name: 'an unknown field', edit: (y) => y.replace('    tests:', '    tset: 1\n    tests:'), says: /tset/ },
  { name: 'a test timeout that is no duration', edit: (y) => y.replaceAll('test_timeout: 1m', 'test_timeout: soon'), says: /test_timeout/ },
  { name: 'a torn file', edit: (y) => y.slice(0, y.indexOf('fail_to_pass') + 15), says: /tasks\.yaml/ },
  { name: 'a task that is a number', edit: () => 'tasks: [1]\n', says: /tasks\[0\]/ },
];

describe('a malformed task set ends in one line, exit 2, with no result table', () => {
  // Without --quiet the progress view holds its start-up lines (the run's plan, the preflight, the
  // broken tasks) until an attempt starts, so they never come before the one line either.
  const cases = MUTATIONS.flatMap((m) => [
    { ...m, quiet: true },
    { ...m, quiet: false },
  ]);
  it.each(cases)('$name (quiet: $quiet)', async ({ edit, says, agent, quiet }) => {
    const dir = tempDir();
    const file = tinyTaskSet(dir, 2);
    mkdirSync(join(dir, 'state'));
    writeFileSync(file, edit(readFileSync(file, 'utf8'), dir));
    const r = await runCli(['run', 'tasks.yaml', '--agent', agent ?? 'nop', '--sandbox', 'local', '--out', 'state', ...(quiet ? ['--quiet'] : [])], {
      cwd: dir,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error /);
    expect(lines[0]).toMatch(says);
    expect(r.stderr).not.toContain('this is a bug');
  });
});
