/**
 * One attempt, end to end, as its phases: prepare (the task's bench: repo, setup, baseline commit,
 * the baseline's tests) → agent (sandboxed, limits enforced, commands recorded) → capture (the
 * change as a tree) → evaluate (the change's tests and held-out tests in fresh copies, the checks)
 * → record (one builder, whatever the ending; the verdict is judge()'s). Never throws.
 */
import { join } from 'node:path';
import type { Agent } from '../domain/agents/index.js';
import type { AttemptPlan, AttemptResult, Task } from '../core/types/index.js';
import { attemptPaths, type AttemptEnv } from './attempt-env.js';
import { AgentChangeError } from './agent-caused.js';
import { PhaseError, timed } from './attempt-phase.js';
import { prepareAttempt } from './attempt-prepare.js';
import { runAgent } from './attempt-agent.js';
import { captureAttempt } from './attempt-capture.js';
import { evaluateAttempt } from './attempt-evaluate.js';
import { attemptRecorder, type AttemptSoFar } from './attempt-record.js';
import { sharedTreePaths } from './shared-baseline.js';

export { ATTEMPT_SCRATCH_DIRS, record } from './attempt-record.js';
export { attemptPaths, type AttemptEnv, type TaskBaselineRuns } from './attempt-env.js';
export type { PreparedNotice } from './bench.js';

export async function runAttempt(plan: AttemptPlan, task: Task, agent: Agent, env: AttemptEnv): Promise<AttemptResult> {
  const timings: AttemptResult['timings'] = { prepareMs: 0, agentMs: 0, verifyMs: 0, totalMs: 0 };
  const sofar: AttemptSoFar = {};
  const recorder = attemptRecorder(plan, { task, agent }, env, sofar, timings);
  const own = attemptPaths(join(env.runDir, 'attempts', plan.attemptId));
  const tree = env.taskBaselines?.get(task.id)?.tree;
  try {
    const bench = await prepareAttempt(task, tree ? sharedTreePaths(own, tree) : own, env, timings, sofar);
    const agentRun = await timed(timings, 'agentMs', 'agent', () => runAgent(agent, task, bench, env, plan));
    sofar.agentResult = agentRun.result;
    if (agentRun.guarded.summary) sofar.guard = agentRun.guarded.summary;
    if (agentRun.containerImageId !== undefined) sofar.containerImageId = agentRun.containerImageId;
    const verified = await timed(timings, 'verifyMs', 'verify', async () => {
      const captured = await captureAttempt(task, bench, agentRun.fsGuard);
      return captured.kind === 'captured' ? evaluateAttempt(task, bench, env, agentRun, captured) : { outcome: captured };
    }).catch((error: unknown) => {
      // A change that cannot even be captured or checked out is the agent's failure, not the harness's.
      if (error instanceof PhaseError && error.original instanceof AgentChangeError)
        return { outcome: { kind: 'unverifiable' as const, message: error.message } };
      throw error;
    });
    await bench.agentTree.release(env.keepWorkspace ? bench.paths.agentWorkspace : undefined);
    if (!('verified' in verified)) return await recorder.end(verified.outcome);
    sofar.verified = verified.verified;
    return await recorder.end(verified.outcome, verified.evidence);
  } catch (error) {
    // An overlay's holder ends before the record removes the attempt's scratch directories.
    await sofar.bench?.agentTree.release().catch(() => undefined);
    return recorder.fail(error);
  }
}
