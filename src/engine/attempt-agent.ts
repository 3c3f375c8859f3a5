/**
 * An attempt's agent phase: the agent run in the sandbox over the bench's workspace, with its
 * limits enforced (the timeout, the workspace and HOME watched against their disk and file-count
 * limits, the online guard with `--guard`), every command recorded by the harness, and writes
 * outside the workspace watched where the sandbox cannot stop them. When it ends, nothing the
 * agent left runs on, and its workspace is set aside as evidence.
 */
import { dirname, join } from 'node:path';
import type { Agent } from '../domain/agents/index.js';
import { recordingExecutor, type CommandEvent, startFsGuard, watchTrees } from '../domain/evidence/index.js';
import { execLimits } from '../domain/evaluation/index.js';
import { startGuard, type GuardSession } from '../domain/guard/index.js';
import { createExecutor } from '../infra/sandbox/index.js';
import type { AgentResult, AttemptPlan, GuardMode, GuardSummary, ResourceLimitName, Task } from '../core/types/index.js';
import type { Bench } from './bench.js';
import { attemptWriteRoots, type AttemptEnv } from './attempt-env.js';
import { sandboxLayout } from './sandbox-layout.js';

export interface AgentRun {
  result: AgentResult;
  /** Every command the agent ran, as the harness recorded it (commands.jsonl is a copy). */
  commands: CommandEvent[];
  /** Whether the sandbox made writes outside the workspace fail. */
  enforcesFs: boolean;
  /** The first sandbox limit one of the agent's commands hit, if any. */
  limitHit?: ResourceLimitName;
  fsGuard: Awaited<ReturnType<typeof startFsGuard>>;
  /** docker: the image id the agent's containers reported. */
  containerImageId?: string;
  /** With `--guard`: what the online guard saw and did, once the phase is over. */
  guarded: { summary?: GuardSummary };
}

export async function runAgent(agent: Agent, task: Task, bench: Bench, env: AttemptEnv, plan: AttemptPlan): Promise<AgentRun> {
  const { paths, baseline } = bench;
  const { attemptDir, workspace } = paths;
  const base = sandboxLayout({ task, stateDir: env.stateDir, workspace, attemptDir, baselineGitDir: baseline.gitDir, environments: env.environments });
  // A model agent's traffic goes through a gateway session; its metering becomes the attempt's usage.
  const agentDirs = env.prepared?.get(agent.name)?.readOnly ?? [];
  const models = env.models?.openAttempt(plan, agent, { workspace, home: base.home, attemptDir, agentDirs });
  // A program run in the sandbox (a CLI agent) reaches the gateway through its socket, and its
  // installed package is shown read-only, even when it lies under the hidden state directory.
  const gateway = agent.turnsAtGateway && models ? env.models?.gateway : undefined;
  const layout = {
    ...base,
    ...(bench.agentTree.overlay ? { overlay: bench.agentTree.overlay } : {}),
    readOnly: [...base.readOnly, ...agentDirs],
    ...(gateway ? { gateway } : {}),
    limits: execLimits(task.limits),
  };
  const controller = new AbortController();
  const guard = env.guard ? await startAttemptGuard(env.guard, task, bench, env, controller) : undefined;
  const guarded: AgentRun['guarded'] = {};
  const sandboxed = (env.executorFactory ?? createExecutor)(env.sandbox, layout);
  const executor = recordingExecutor(guard ? guard.executor(sandboxed) : sandboxed, join(attemptDir, 'commands.jsonl'), controller.signal);
  const enforcesFs = executor.capabilities.filesystem;
  // Without a sandbox that stops them, outside writes can only be looked for afterwards.
  const fsGuard = await startFsGuard({
    attemptDir,
    resultsDir: paths.resultsDir,
    trees: enforcesFs ? [] : [dirname(task.sourceFile), ...(task.repo.kind === 'local' ? [task.repo.path] : []), ...(task.heldOut ? [task.heldOut.path] : [])],
    exclude: [env.stateDir, attemptDir],
  });
  const onOuterAbort = (): void => controller.abort();
  env.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const timeoutMs = env.models?.agentTimeoutMs ?? task.limits.agentTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolveTimeout) => {
    timer = setTimeout(() => {
      controller.abort();
      resolveTimeout('timeout');
    }, timeoutMs);
  });
  // Measured where the host sees the agent's tree: through its holder, for an overlay.
  const watchdog = watchWorkspace(bench.agentTree.hostPath(workspace), layout.home, task, controller);
  try {
    const run = agent
      .run({
        task,
        workspace,
        instruction: task.instruction,
        executor,
        attemptDir,
        home: layout.home,
        limits: { timeoutMs },
        signal: controller.signal,
        ...(models ? { model: models.access } : {}),
        reportCommands: (commands) => {
          guard?.reported(commands, workspace);
          executor.report(commands, workspace);
        },
      })
      .catch((error: unknown): AgentResult => ({ stopReason: 'error', error: error instanceof Error ? error.message : String(error) }));
    const raced = await Promise.race([run, timeout, watchdog.exceeded, ...(guard ? [guard.stopped] : [])]);
    let result: AgentResult;
    if (typeof raced === 'object' && 'rule' in raced) {
      // enforce stopped the agent on a filesystem violation; the checks judge what it left.
      const late = await Promise.race([run, delay(TIMEOUT_REPORT_GRACE_MS)]);
      result = {
        ...(late ?? {}),
        stopReason: 'error',
        error: `stopped by the online guard (enforce): ${raced.rule} ${raced.path ?? ''} (${raced.detail}), detected in ${raced.detectionMs} ms`,
      };
    } else if (typeof raced === 'object' && 'limit' in raced && !('stopReason' in raced)) {
      const late = await Promise.race([run, delay(TIMEOUT_REPORT_GRACE_MS)]);
      result = { ...(late ?? {}), stopReason: 'resource_exceeded', limit: raced.limit, error: raced.message };
    } else if (raced === 'timeout') {
      // The agent was aborted; give it a moment to return what it has (turns, tool calls), but the
      // stop stays a timeout whatever it says.
      const late = await Promise.race([run, delay(TIMEOUT_REPORT_GRACE_MS)]);
      result = { ...(late ?? {}), stopReason: 'timeout', error: `agent did not finish within ${timeoutMs} ms` };
    } else {
      result = raced;
    }
    const commands = [...executor.events()];
    const limitHit = commands.find((c) => c.limitExceeded !== undefined)?.limitExceeded;
    const containerImageId = executor.containerImageId?.();
    return {
      result: models ? models.finish(result) : result,
      commands,
      enforcesFs,
      fsGuard,
      guarded,
      ...(limitHit ? { limitHit } : {}),
      ...(containerImageId !== undefined ? { containerImageId } : {}),
    };
  } finally {
    clearTimeout(timer);
    watchdog.stop();
    env.signal?.removeEventListener('abort', onOuterAbort);
    controller.abort();
    // Nothing the agent left running survives its phase (docker: its container goes).
    await executor.close();
    // The guard reads the tree once more now that nothing runs, and writes its incident bundle.
    if (guard) guarded.summary = await guard.finish();
    // From here on the workspace is evidence: moved aside, read only through git.
    await bench.setAside();
  }
}

/** The online guard over this attempt's workspace and commands, judged by the post-hoc checks' rules. */
function startAttemptGuard(mode: GuardMode, task: Task, { paths, baseline }: Bench, env: AttemptEnv, controller: AbortController): Promise<GuardSession> {
  return startGuard({
    mode,
    task,
    workspace: paths.workspace,
    attemptDir: paths.attemptDir,
    writeRoots: attemptWriteRoots(task, paths, env.stateDir),
    // Which paths git ignores, by the baseline's rules (the pristine tree), not the agent's edits.
    ignoreTarget: { gitDir: baseline.gitDir, workTree: paths.pristine },
    controller,
  });
}

/**
 * Measures the workspace and HOME while the agent works and stops the agent when either grows past
 * the task's disk or file-count limit. HOME is a host directory too (a tmpfs /tmp is bounded by
 * the memory limit): it gets the same limits, measured apart.
 */
function watchWorkspace(
  workspace: string,
  home: string | undefined,
  task: Task,
  controller: AbortController,
): { exceeded: Promise<{ limit: ResourceLimitName; message: string }>; stop(): void } {
  const limits = { maxFiles: task.limits.resources.workspaceFiles, maxBytes: task.limits.resources.workspaceBytes };
  const trees = [{ root: workspace, label: 'the workspace' }, ...(home ? [{ root: home, label: 'HOME' }] : [])];
  let watch: ReturnType<typeof watchTrees> | undefined;
  const exceeded = new Promise<{ limit: ResourceLimitName; message: string }>((resolveExceeded) => {
    watch = watchTrees(trees, limits, () => {
      controller.abort();
      const found = watch?.exceeded();
      if (found) resolveExceeded(found);
    });
  });
  return { exceeded, stop: () => watch?.stop() };
}

/** How long a timed-out agent may take to hand back its partial result after being aborted. */
const TIMEOUT_REPORT_GRACE_MS = 2_000;

function delay(ms: number): Promise<undefined> {
  return new Promise((resolveDelay) => setTimeout(() => resolveDelay(undefined), ms).unref());
}
