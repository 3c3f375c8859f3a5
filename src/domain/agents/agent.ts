import type { ModelTurn, Pricing } from '../../infra/gateway/index.js';
import type { Executor, SandboxKind } from '../../infra/sandbox/index.js';
import type { AgentInfo, AgentResult, Task } from '../../core/types/index.js';
import type { ModelSpec } from './models/providers.js';

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
  /** The private HOME the executor gives commands (writable, inside the sandbox; empty at start). */
  home?: string;
  limits: { timeoutMs: number };
  /** Aborted on timeout or when the run is stopped; agents must return promptly. */
  signal: AbortSignal;
  /** Set for agents with a `modelSpec`: this attempt's way to the model, through the gateway. */
  model?: ModelAccess;
  /**
   * Commands the agent says it ran inside a program the executor ran (a CLI agent's Bash tool):
   * added to the attempt's command log marked as reported, so the unsafe-commands check sees them.
   */
  reportCommands?(commands: ReadonlyArray<{ command: string; exitCode?: number | null }>): void;
}

/** A model agent's gateway session for one attempt. The gateway's metering, not the agent's, is the record. */
export interface ModelAccess {
  /**
   * Per provider (`openai`, `anthropic`, `google`, …), this attempt's gateway base URL: OpenAI-kind
   * ones end in `/v1`; Anthropic's does not (the AI SDK's Anthropic provider wants `${url}/v1`).
   */
  baseUrls: Record<string, string>;
  /** The gateway holds the real keys; agents send this. */
  apiKey: string;
  limits: ModelLimits;
  /** For the agent's own cost check; undefined cost means the model is unpriced. */
  pricing?: Pricing;
  /** Responses come from a cassette: rate-limit waits are recorded but not slept. */
  replaying?: boolean;
  /** The gateway's metered turns of this attempt so far (what an external agent's trajectory is built from). */
  turns?(): ModelTurn[];
}

export interface ModelLimits {
  maxTurns: number;
  /** Input + output tokens, summed over the attempt. */
  maxTokens?: number;
  maxCostUsd?: number;
  /** Calls of the run_tests tool. */
  maxTestRuns?: number;
}

export interface Agent {
  /** The spec that selected it, e.g. `oracle`; shown in reports. */
  readonly name: string;
  /** Set for agents that call a model: the engine opens a gateway session per attempt for them. */
  readonly modelSpec?: ModelSpec;
  /**
   * The gateway, not the agent, counts its turns (a CLI agent): `maxTurns` becomes the session's
   * request limit, and its traffic must reach the gateway from inside the sandbox.
   */
  readonly turnsAtGateway?: boolean;
  /**
   * `serve`: the gateway also forwards requests for models other than `modelSpec`'s, recording the
   * model that answered each; by default they are refused (the attempt is pinned to its model).
   */
  readonly otherModels?: 'serve';
  /**
   * Its model requests set no output limit of their own, so each reserves the model's documented
   * maximum at the gateway: the floor a run's budgets are checked against before it starts. Unset
   * when the agent may set a limit (an external program): the floor is then an empty request.
   */
  readonly setsNoOutputLimit?: boolean;
  /**
   * Called once per run, before any attempt (installs, version): what every attempt records as
   * `agentInfo`, and directories the sandbox must show read-only for the agent's program. A
   * rejection stops the run before its first attempt (an InputError exits 2).
   */
  prepare?(env: AgentPrepareEnv): Promise<AgentPrepared>;
  run(ctx: AgentContext): Promise<AgentResult>;
}

export interface AgentPrepareEnv {
  /** Crucible's state directory; the agent cache defaults to `<stateDir>/agents`. */
  stateDir: string;
  /** The run's sandbox: an agent's own program (its version command) runs in it, never bare on the host. */
  sandbox: SandboxKind;
  signal?: AbortSignal;
  /** One line per slow step of preparing (installing the agent's program), told as it starts. */
  onProgress?: (line: string) => void;
}

export interface AgentPrepared {
  info: AgentInfo;
  /** Host directories shown read-only in every attempt's sandbox (an installed package). */
  readOnly: string[];
}
