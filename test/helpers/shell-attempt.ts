import { join } from 'node:path';
import type { Agent } from '../../src/domain/agents/index.js';
import { runAttempt, type AttemptEnv } from '../../src/engine/attempt.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';

let n = 0;

/** One attempt of `task` under bwrap in `stateDir`, without baseline tests. */
export function bwrapAttempt(task: Task, agent: Agent, stateDir: string, env: Partial<AttemptEnv> = {}): Promise<AttemptResult> {
  const plan = { attemptId: `a${n++}`, runId: 'r', taskId: task.id, taskVersion: task.version, agent: agent.name, trial: 0, index: 0 };
  return runAttempt(plan, task, agent, { runDir: join(stateDir, 'runs', 'r'), stateDir, sandbox: 'bwrap', baselineTests: false, ...env });
}

/** An agent that runs one shell script in its workspace; `seen` gets what it printed. */
export function shellAgent(script: string, seen: string[] = []): Agent {
  return {
    name: 'shell',
    async run(ctx) {
      const out = await ctx.executor.exec({ argv: ['sh', '-c', script], cwd: ctx.workspace, timeoutMs: 30_000, network: 'none', signal: ctx.signal });
      seen.push(out.stdout + out.stderr);
      return { stopReason: 'completed' };
    },
  };
}
