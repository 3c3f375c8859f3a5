import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function taskSet(dir: string): string {
  cpSync(resolve('examples/repos/js-slugify'), join(dir, 'repo'), { recursive: true });
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    [
      'tasks:',
      '  - id: guarded',
      '    repo: { path: repo }',
      '    instruction: Fix slugify.',
      '    tests:',
      '      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/*.test.mjs',
      '      fail_to_pass: [slugify > strips leading and trailing punctuation]',
      "    policy: { forbidden_paths: ['.github/**'] }",
      '',
    ].join('\n'),
  );
  return file;
}

describe('crucible run --guard', () => {
  it(
    'enforce: the agent is stopped mid-run, the reports count it per agent with the detection time, and the plan keeps the mode for resume',
    async () => {
      const dir = tempDir();
      const out = join(dir, 'state');
      const run = await runCli(['run', taskSet(dir), '--agent', 'forbidden-write', '--guard', 'enforce', '--reporter', 'markdown,json', '--out', out], {
        cwd: dir,
        attempts: 2,
      });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stdout).toMatch(
        /forbidden-write {2}guard enforce: 1 of 1 attempt\(s\) with incidents \(\d+ finding\(s\)\): 1 stopped, 0 command\(s\) blocked, \d+ audit-only, detected in \d+–\d+ ms/,
      );

      const [runId] = readdirSync(join(out, 'runs'));
      const runDir = join(out, 'runs', runId as string);
      const plan = JSON.parse(readFileSync(join(runDir, 'plan.json'), 'utf8')) as { settings: Record<string, unknown> };
      expect(plan.settings.guard).toBe('enforce');
      const [attemptId] = readdirSync(join(runDir, 'attempts'));
      const attempt = JSON.parse(readFileSync(join(runDir, 'attempts', attemptId as string, 'attempt.json'), 'utf8')) as AttemptResult;
      expect(attempt.guard).toMatchObject({ mode: 'enforce', stopped: true });
      expect(attempt.cause).toBe('policy_violation');

      const markdown = readFileSync(join(runDir, 'report.md'), 'utf8');
      expect(markdown).toMatch(/## Online guard/);
      expect(markdown).toMatch(/\| \*\*forbidden-write\*\* \| enforce \| 1 of 1 \| \d+ \| 1 \| 0 \| \d+ \| \d+–\d+ ms \|/);
      const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as { view: { guard?: Array<Record<string, unknown>> } };
      expect(report.view.guard).toEqual([expect.objectContaining({ agent: 'forbidden-write', mode: 'enforce', incidents: 1, stopped: 1, blocked: 0 })]);
      // summary.json (the stable contract, and `show --json` from it) carries the same counts.
      const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { guard?: unknown };
      expect(summary.guard).toEqual(report.view.guard);
      const shown = await runCli(['show', runId as string, '--json', '--out', out], { cwd: dir });
      expect((JSON.parse(shown.stdout) as { guard?: unknown }).guard).toEqual(report.view.guard);

      // A resume with another guard mode is another config.
      const resumed = await runCli(
        ['run', join(dir, 'tasks.yaml'), '--agent', 'forbidden-write', '--guard', 'audit', '--resume', runId as string, '--out', out],
        {
          cwd: dir,
        },
      );
      expect(resumed.status).toBe(2);
      expect(resumed.stderr).toMatch(/guard/);
    },
    attemptBudget(3),
  );
});
