import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { crucible } from '../helpers/cli.js';
import { sharedExampleRun, type ExampleRun } from '../helpers/examples.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const EXAMPLE_TASKS = loadTaskSet('examples/tasks.yaml').tasks;
/** oracle and nop on every example: the shared run the tests below read. */
const FULL_RUN_ATTEMPTS = EXAMPLE_TASKS.length * 2;

interface SummaryJson {
  runId: string;
  attempts: Array<{ taskId: string; agent: string; trial: number; verdict: string; cause: string; message: string; dir: string }>;
}

describe('crucible run on the bundled examples', () => {
  // The tier's one run of every example with both reference agents (test/setup/examples.ts),
  // shared read-only; its time limit comes from its attempt count (helpers/budget.ts).
  let out: string;
  let full: ExampleRun;
  let summary: SummaryJson;
  beforeAll(async () => {
    full = await sharedExampleRun();
    out = full.state;
    expect(full.attempts).toBe(FULL_RUN_ATTEMPTS);
    expect(full.status, full.stderr).toBe(1);
    summary = JSON.parse(full.stdout) as SummaryJson;
  }, attemptBudget(FULL_RUN_ATTEMPTS));

  it('oracle passes every task, nop fails every task naming its failing F2P tests', () => {
    expect(summary.runId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4}$/);

    const oracle = summary.attempts.filter((a) => a.agent === 'oracle');
    expect(oracle.map((a) => a.taskId).sort()).toEqual(EXAMPLE_TASKS.map((t) => t.id).sort());
    for (const a of oracle) expect({ task: a.taskId, verdict: a.verdict, cause: a.cause }).toEqual({ task: a.taskId, verdict: 'PASS', cause: 'passed' });

    const nop = summary.attempts.filter((a) => a.agent === 'nop');
    expect(nop).toHaveLength(EXAMPLE_TASKS.length);
    for (const a of nop) {
      expect(a.verdict).toBe('FAIL');
      const task = EXAMPLE_TASKS.find((t) => t.id === a.taskId);
      for (const id of task?.tests.failToPass ?? []) expect(a.message).toContain(id);
    }
  });

  it('leaves the evidence on disk: attempt.json (versioned), diff.patch, the JUnit copy, summary.json', () => {
    const runDir = join(out, 'runs', summary.runId);
    const slugify = summary.attempts.find((a) => a.agent === 'oracle' && a.taskId === 'js-slugify');
    const attemptDir = join(runDir, slugify?.dir ?? '');
    const attempt = JSON.parse(readFileSync(join(attemptDir, 'attempt.json'), 'utf8')) as { schemaVersion: number; diff: { filesChanged: number } };
    expect(attempt.schemaVersion).toBe(1);
    expect(attempt.diff.filesChanged).toBe(1);
    expect(readFileSync(join(attemptDir, 'diff.patch'), 'utf8')).toContain('src/slugify.mjs');
    expect(readFileSync(join(attemptDir, 'tests.junit.xml'), 'utf8')).toContain('<testsuites');
    expect(existsSync(join(runDir, 'summary.json'))).toBe(true);
    expect(existsSync(join(attemptDir, 'workspace'))).toBe(false);
  });

  it('prints one row per attempt with F2P, P2P, files and phase times (on stderr under --json)', () => {
    expect(full.stderr).toMatch(/result\s+task\s+agent\s+trial\s+F2P\s+P2P\s+files\s+prepare\s+agent\s+verify/);
    expect(full.stderr).toMatch(/FAIL\s+js-sortby\s+nop\s+0\s+0\/1\s+4\/4\s+0\s/);
  });

  it(
    'exits 0 when every attempt passes, with the report on stdout',
    () => {
      const result = crucible(['run', 'examples/tasks.yaml', '--agent', 'oracle', '--task', 'py-median', '--out', tempDir()], { attempts: 1 });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/result\s+task\s+agent\s+trial\s+F2P\s+P2P\s+files\s+prepare\s+agent\s+verify/);
      expect(result.stdout).toMatch(/PASS\s+py-median\s+oracle\s+0\s+1\/1\s+\d+\/\d+\s+1\s/);
    },
    attemptBudget(1),
  );
});

describe('bad input', () => {
  it('a malformed task file gives one line with file:line and exit 2', () => {
    const dir = tempDir();
    const file = join(dir, 'tasks.yaml');
    writeFileSync(
      file,
      'tasks:\n  - id: x\n    repo: { path: . }\n    instruction: hi\n    tests: { command: true, fail_to_pass: [a], pass_to_pas: all_others }\n',
    );
    const result = crucible(['run', file, '--agent', 'nop', '--out', join(dir, 'state')]);
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${file}:5:`);
    expect(lines[0]).toContain('tasks[0].tests.pass_to_pas');
    expect(lines[0]).toContain('did you mean "pass_to_pass"');
  });

  it('an unknown agent, a missing file and a bad option exit 2', () => {
    expect(crucible(['run', 'examples/tasks.yaml', '--agent', 'gpt-99', '--out', tempDir()]).status).toBe(2);
    expect(crucible(['run', 'nope.yaml', '--agent', 'nop']).status).toBe(2);
    expect(crucible(['run', 'examples/tasks.yaml', '--agent', 'nop', '--no-such-flag']).status).toBe(2);
  });
});
