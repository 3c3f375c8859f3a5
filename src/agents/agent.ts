import type { Executor } from '../sandbox/executor.js';
import type { AgentResult, Task } from '../types/index.js';

/** What an agent gets for one attempt. It may touch the repo only through `executor`. */
export interface AgentContext {
  task: Task;
  /** Absolute path of the workspace; the executor's cwd. */
  workspace: string;
  instruction: string;
  /** Records every command it runs (for the unsafe-commands check) and enforces the sandbox. */
  executor: Executor;
  /** Per-attempt directory outside the workspace, for the agent's trajectory and logs. */
  attemptDir: string;
  limits: { timeoutMs: number };
  /** Aborted on timeout or when the run is stopped; agents must return promptly. */
  signal: AbortSignal;
}

export interface Agent {
  /** The spec that selected it, e.g. `oracle`; shown in reports. */
  readonly name: string;
  run(ctx: AgentContext): Promise<AgentResult>;
}
