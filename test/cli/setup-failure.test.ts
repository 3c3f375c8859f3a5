import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

// A real npm install that fails offline: the registry is a closed local port, so npm prints its
// `npm error` lines and ends with its note about the log (the line a tail would keep).
const NPM_INSTALL = 'npm install crucible-no-such-package-zz@99.0.0 --registry http://127.0.0.1:9 --fetch-retries 0';

describe('a failing setup command', () => {
  it(
    "keeps npm's error lines in the attempt, its output file and `crucible show`, and times copy and setup apart",
    async () => {
      const dir = tempDir();
      cpSync(resolve('examples/repos/js-slugify'), join(dir, 'repo'), { recursive: true });
      writeFileSync(
        join(dir, 'tasks.yaml'),
        [
          'tasks:',
          '  - id: npm-setup',
          '    repo: { path: repo }',
          '    instruction: Fix slugify.',
          `    setup: ['${NPM_INSTALL}']`,
          '    tests:',
          '      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/*.test.mjs',
          '      fail_to_pass: [slugify > strips leading and trailing punctuation]',
          '',
        ].join('\n'),
      );
      const out = join(dir, 'state');
      const run = await runCli(['run', join(dir, 'tasks.yaml'), '--agent', 'nop', '--out', out], { cwd: dir, attempts: 2 });
      expect(run.status, run.stderr).toBe(1);
      // The preflight met it first: its warning has the reason and where the output is.
      expect(run.stderr).toMatch(
        /could not be checked before the run \(setup command `npm install [^`]+` failed \(exit 1\): npm error code ECONNREFUSED; its output: /,
      );

      const [runId] = readdirSync(join(out, 'runs'));
      const attemptsDir = join(out, 'runs', runId as string, 'attempts');
      const [attemptId] = readdirSync(attemptsDir);
      const attemptDir = join(attemptsDir, attemptId as string);
      const attempt = JSON.parse(readFileSync(join(attemptDir, 'attempt.json'), 'utf8')) as AttemptResult;
      expect(attempt.cause).toBe('harness_error');
      expect(attempt.message).toBe(`prepare: setup command \`${NPM_INSTALL}\` failed (exit 1): npm error code ECONNREFUSED`);
      expect(attempt.harnessError?.detail).toMatch(/^npm error code ECONNREFUSED$/m);
      expect(attempt.harnessError?.detail).toMatch(/^npm error FetchError: request to http:\/\/127\.0\.0\.1:9\/crucible-no-such-package-zz failed/m);
      expect(attempt.harnessError?.detail).toMatch(/^npm error A complete log of this run/m);
      expect(readFileSync(join(attemptDir, 'setup-output.txt'), 'utf8')).toContain('npm error code ECONNREFUSED');
      expect(attempt.timings).toMatchObject({ copyMs: expect.any(Number), setupMs: expect.any(Number) });
      expect(attempt.timings.baselineCommitMs).toBeUndefined();

      const show = await runCli(['show', attemptId as string, '--out', out], { cwd: dir });
      expect(show.status, show.stderr).toBe(0);
      expect(show.stdout).toMatch(/│ npm error code ECONNREFUSED/);
      expect(show.stdout).toMatch(/prepare \S+ \(copy \S+ · setup \S+\)/);
      expect(existsSync(join(out, 'runs', runId as string, 'preflight'))).toBe(true);
    },
    attemptBudget(2),
  );
});
