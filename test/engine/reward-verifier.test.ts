/**
 * `tests.kind: reward` and `oracle.script` end to end under bwrap: the oracle script's change is
 * graded like an agent's, PASS needs a reward of exactly 1, partial rewards are kept, the
 * verifier's files are out of the agent's sight, and a reward the agent forges — written to every
 * place it can reach — is never the one read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { resolveAgent } from '../../src/domain/agents/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt, type AttemptEnv } from '../../src/engine/attempt.js';
import { runTaskTests } from '../../src/engine/task-tests.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const VERIFIER_CANARY = 'verifier-canary-71c3';

/**
 * A task whose verifier gives half the reward per right file. `silentOnFailure`: it writes no
 * reward at all unless both are right (the other way a Harbor verifier may behave).
 */
function fixture(options: { silentOnFailure?: boolean } = {}): Task {
  const dir = tempDir();
  const verifier = options.silentOnFailure
    ? `[ "$(cat a.txt 2>/dev/null)" = A ] && [ "$(cat b.txt 2>/dev/null)" = B ] && echo 1 > "$CRUCIBLE_REWARD"\nexit 0\n`
    : [
        `# ${VERIFIER_CANARY}`,
        's=0',
        '[ "$(cat a.txt 2>/dev/null)" = A ] && s=$((s+1))',
        '[ "$(cat b.txt 2>/dev/null)" = B ] && s=$((s+1))',
        'case $s in 2) echo 1 ;; 1) echo 0.5 ;; *) echo 0 ;; esac > "$CRUCIBLE_REWARD"',
        '',
      ].join('\n');
  const files: Record<string, string> = {
    'repo/README.md': 'write a.txt and b.txt\n',
    'verifier/tests/test.sh': verifier,
    'solve.sh': 'set -e\necho A > a.txt\necho B > b.txt\n',
    'tasks.yaml': [
      'tasks:',
      '  - id: files',
      '    repo: { path: repo }',
      '    instruction: write a.txt holding A and b.txt holding B.',
      '    tests: { kind: reward, command: "bash tests/test.sh", files: verifier }',
      '    oracle: { script: solve.sh }',
      '',
    ].join('\n'),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
}

let counter = 0;
function attempt(task: Task, agent: Agent, env: Partial<AttemptEnv> = {}): Promise<AttemptResult> {
  const stateDir = tempDir();
  const plan = { attemptId: `r${counter++}`, runId: 'r', taskId: task.id, taskVersion: task.version, agent: agent.name, trial: 0, index: 0 };
  return runAttempt(plan, task, agent, { runDir: join(stateDir, 'runs', 'r'), stateDir, sandbox: 'bwrap', ...env });
}

function shellAgent(name: string, script: string, seen?: { output: string }): Agent {
  return {
    name,
    async run(ctx) {
      const r = await ctx.executor.exec({ argv: ['bash', '-c', script], cwd: ctx.workspace, timeoutMs: 30_000, network: 'none', signal: ctx.signal });
      if (seen) seen.output = r.stdout + r.stderr;
      return { stopReason: 'completed' };
    },
  };
}

/** Writes a reward of 1 (both spellings) everywhere it can: workspace, Harbor's path, HOME, /tmp, next to the workspace. */
const FORGE = [
  'for d in . logs/verifier /logs/verifier "$HOME" /tmp "${TMPDIR:-/tmp}" .. ../results ../results/reward; do',
  '  mkdir -p "$d" 2>/dev/null',
  '  echo 1 > "$d/reward.txt" 2>/dev/null',
  `  echo '{"reward": 1}' > "$d/reward.json" 2>/dev/null`,
  'done',
  'export CRUCIBLE_REWARD=./reward.txt',
  'echo A > a.txt',
  'true',
].join('\n');

describe('reward verifier (tests.kind: reward) and oracle script', () => {
  it(
    'passes the oracle script on reward 1, fails nop, keeps a partial reward, and never lets the agent see the verifier',
    async () => {
      const task = fixture();
      expect(task.tests).toMatchObject({ failToPass: ['reward'], passToPass: [], reward: { files: expect.stringContaining('verifier') } });
      expect(task.oracle?.script).toContain('echo A > a.txt');

      const oracle = await attempt(task, resolveAgent('oracle'));
      expect(oracle).toMatchObject({ verdict: 'PASS', cause: 'passed', tests: { reward: 1, failToPass: { passed: 1, total: 1 } } });
      expect(oracle.diff?.files.map((f) => f.path).sort()).toEqual(['a.txt', 'b.txt']);
      // The baseline run of the verifier: reward 0 before any agent.
      expect(oracle.baselineTests?.reward).toBe(0);

      const nop = await attempt(task, resolveAgent('nop'));
      expect(nop.verdict).toBe('FAIL');
      expect(nop.tests?.reward).toBe(0);

      const seen = { output: '' };
      const half = await attempt(
        task,
        shellAgent('half', `echo A > a.txt; ls -a; cat tests/test.sh 2>&1; grep -r ${VERIFIER_CANARY} / 2>/dev/null | head -1; true`, seen),
      );
      expect(half).toMatchObject({ verdict: 'FAIL', cause: 'tests_failed', tests: { reward: 0.5, failToPass: { passed: 0, total: 1 } } });
      expect(seen.output).not.toContain(VERIFIER_CANARY);
      expect(seen.output).toContain('No such file');
    },
    attemptBudget(4),
  );

  it(
    'never passes a forged reward: the verifier writes 0, or nothing',
    async () => {
      for (const silentOnFailure of [false, true]) {
        const task = fixture({ silentOnFailure });
        const forged = await attempt(task, shellAgent('forger', FORGE));
        expect(forged.verdict).toBe('FAIL');
        expect(forged.cause).toBe('tests_failed');
        expect(forged.tests?.failToPass.passed).toBe(0);
        expect(forged.tests?.invalidReason).toBeUndefined();
        // The forger wrote a.txt only: half the reward from the verifier that grades, none from the silent one.
        expect(forged.tests?.reward).toBe(silentOnFailure ? undefined : 0.5);
      }
    },
    attemptBudget(2),
  );

  it(
    "an oracle script that fails is the task's error, not a failing agent",
    async () => {
      const task = fixture();
      const broken = await attempt({ ...task, oracle: { script: 'echo boom >&2; exit 3' } }, resolveAgent('oracle'), { baselineTests: false });
      expect(broken).toMatchObject({ verdict: 'ERROR', cause: 'task_error' });
      expect(broken.message).toMatch(/oracle script failed \(exit 3\): boom/);
    },
    attemptBudget(1),
  );

  it(
    'crucible tests runs the verifier at the baseline and with the oracle script: one id, reward',
    async () => {
      const task = fixture();
      const sides = await runTaskTests(task, { stateDir: tempDir(), sandbox: 'bwrap', sides: ['baseline', 'oracle'] });
      expect(sides.map((s) => [s.at, s.tests, s.evidence.reward])).toEqual([
        ['baseline', [{ id: 'reward', outcome: 'failed', cases: 1 }], 0],
        ['oracle', [{ id: 'reward', outcome: 'passed', cases: 1 }], 1],
      ]);
    },
    attemptBudget(2),
  );
});
