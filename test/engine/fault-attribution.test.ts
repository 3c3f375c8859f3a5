/**
 * Whose fault an attempt's failure is, decided by who failed (docs/grading.md, "Whose fault"): the
 * harness's own errno, statfs of the state directory, the sandbox supervisor's out-of-band report;
 * never the words of a tool's or an agent's output. In-process, through runAttempt, in bwrap.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { resolveRunAgent } from '../../src/domain/redteam/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt, type AttemptEnv } from '../../src/engine/attempt.js';
import { attemptFaultOf, StateFaultWatch } from '../../src/engine/state-faults.js';
import type { AttemptPlan, AttemptResult, Task } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const mounts: string[] = [];
afterEach(() => {
  for (const at of mounts.splice(0)) spawnSync('umount', ['-l', at]);
});

function slugify(): Task {
  const task = loadTaskSet('examples/tasks.yaml').tasks.find((t) => t.id === 'js-slugify');
  if (!task) throw new Error('examples/tasks.yaml has no js-slugify');
  return task;
}

function plan(agent: string): AttemptPlan {
  return { attemptId: `js-slugify.${agent}.0`, runId: 'r', taskId: 'js-slugify', taskVersion: '1', agent, trial: 0, index: 0 };
}

function envIn(stateDir: string): AttemptEnv & { runDir: string } {
  const runDir = join(stateDir, 'runs', 'r');
  mkdirSync(runDir, { recursive: true });
  // A run directory with its plan, as a run has it: the watch below reads a missing one as vanished.
  writeFileSync(join(runDir, 'plan.json'), '{}');
  return { runDir, stateDir, sandbox: 'bwrap', baselineTests: false };
}

function watched(result: AttemptResult, env: { stateDir: string; runDir: string }): boolean {
  const watch = new StateFaultWatch({ stateDir: env.stateDir, runDir: env.runDir, runId: 'r' });
  watch.noteAttempt(result);
  return watch.halted();
}

describe('an agent that dresses its failure in the words of a machine fault', () => {
  it("a file git refuses, in a directory named 'No space left on device …': the agent's FAIL, and the run goes on", async () => {
    const env = envIn(join(tempDir(), '.crucible'));
    const result = await runAttempt(plan('fault-words-filename'), slugify(), resolveRunAgent('fault-words-filename'), env);
    expect({ verdict: result.verdict, cause: result.cause }, result.message).toEqual({ verdict: 'FAIL', cause: 'tests_failed' });
    expect(result.message).toMatch(/^verify: could not capture the change: .*invalid path 'No space left on device/);
    expect(result.harnessError).toBeUndefined();
    expect(watched(result, env)).toBe(false);
  });
});

describe('the harness failing on its own evidence', () => {
  it.skipIf(process.getuid?.() !== 0)(
    "a state directory whose disk fills up under the attempt: the harness's own write fails, statfs says full, the attempt is a harness error that stops the run",
    async () => {
      const stateDir = join(tempDir(), '.crucible');
      mkdirSync(stateDir, { recursive: true });
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', stateDir], { encoding: 'utf8' });
      expect(mounted.status, mounted.stderr).toBe(0);
      mounts.push(stateDir);
      const env = envIn(stateDir);
      // Another process fills the disk while the agent works; the change itself is one line.
      const filler: Agent = {
        name: 'filler',
        async run(ctx) {
          // Through the executor, as agents touch their workspace (under bwrap an overlay the host's path does not show).
          await ctx.executor.exec({ argv: ['sh', '-c', 'echo "a change to capture" > src/note.txt'], cwd: ctx.workspace, timeoutMs: 30_000, network: 'none' });
          spawnSync('sh', ['-c', `head -c 1G /dev/zero > ${join(stateDir, 'filler')}`]);
          return { stopReason: 'completed' };
        },
      };
      const result = await runAttempt(plan('filler'), slugify(), filler, env);
      expect({ verdict: result.verdict, cause: result.cause }, result.message).toEqual({ verdict: 'ERROR', cause: 'harness_error' });
      expect(result.harnessError).toMatchObject({ phase: 'verify', stateDiskFull: true });
      // The record's cleanup freed space since; the evidence taken when it failed still stops the run.
      expect(attemptFaultOf(result, { stateDir, runDir: env.runDir, runId: 'r' })).toMatchObject({ fault: 'no_space', exitCode: 75 });
      rmSync(join(stateDir, 'filler'));
    },
  );
});
