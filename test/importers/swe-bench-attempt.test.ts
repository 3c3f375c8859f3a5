/**
 * An imported SWE-bench task graded like any other, through one real attempt under bwrap: an agent
 * that fixes the bug and also writes its own test file under the name the test patch adds still
 * passes (its file is set aside and the test patch applies), and one that only writes that file
 * fails. The test patch is never in the agent's workspace.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt } from '../../src/engine/attempt.js';
import type { Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const FIX = `import re, pathlib
p = pathlib.Path('calc/__init__.py')
s = p.read_text()
s = s.replace('    """value limited to [low, high]."""\\n', '    """value limited to [low, high]."""\\n    if low > high:\\n        raise ValueError("reversed")\\n')
p.write_text(s)
`;
const OWN_TEST = 'def test_rejects_reversed_bounds():\n    assert True\n';

function scriptAgent(name: string, fix: boolean): Agent & { sawTestPatch: () => boolean } {
  let saw = false;
  return {
    name,
    sawTestPatch: () => saw,
    async run(ctx) {
      // Looked for as the agent sees its workspace, through the executor (under bwrap an overlay the host's path does not show).
      const look = await ctx.executor.exec({
        argv: ['test', '-e', 'tests/test_clamp_order.py'],
        cwd: ctx.workspace,
        timeoutMs: 30_000,
        network: 'none',
        signal: ctx.signal,
      });
      saw = look.exitCode === 0;
      const script = [fix ? `python3 - <<'PY'\n${FIX}PY` : 'true', `cat > tests/test_clamp_order.py <<'PY'\n${OWN_TEST}PY`].join('\n');
      const r = await ctx.executor.exec({ argv: ['sh', '-c', script], cwd: ctx.workspace, timeoutMs: 30_000, network: 'none', signal: ctx.signal });
      return r.exitCode === 0 ? { stopReason: 'completed' } : { stopReason: 'error', error: r.stderr };
    },
  };
}

it(
  "an agent's own test file under the test patch's name neither blocks nor fakes the grading",
  async () => {
    const repos = tempDir();
    execFileSync('sh', [resolve('examples/swe-bench/make-repo.sh'), repos]);
    const out = join(tempDir(), 'imported');
    const args = ['import', 'swe-bench', resolve('examples/swe-bench/instances.jsonl'), '--ids', 'example__calc-2', '--repos', repos, '-o', out];
    expect(crucible([...args, '--environment', 'none']).status).toBe(0);
    const task = loadTaskSet(join(out, 'tasks.yaml')).tasks[0] as Task;
    const stateDir = tempDir();
    const attempt = async (agent: Agent, index: number) =>
      runAttempt({ attemptId: `a${index}`, runId: 'r', taskId: task.id, taskVersion: task.version, agent: agent.name, trial: 0, index }, task, agent, {
        runDir: join(stateDir, 'runs', 'r'),
        stateDir,
        sandbox: 'bwrap',
      });

    const fixer = scriptAgent('fixer', true);
    expect(await attempt(fixer, 0)).toMatchObject({ verdict: 'PASS', cause: 'passed' });
    expect(fixer.sawTestPatch()).toBe(false);

    const faker = scriptAgent('faker', false);
    expect(await attempt(faker, 1)).toMatchObject({ verdict: 'FAIL', cause: 'tests_failed' });
  },
  attemptBudget(2),
);
