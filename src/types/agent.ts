export type StopReason =
  | 'submitted'
  | 'end_turn'
  | 'max_turns'
  | 'budget_exceeded'
  | 'timeout'
  | 'context_exceeded'
  | 'error'
  | 'completed';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  requests: number;
  /** Undefined when the model has no price in pricing.yaml: never a guess. */
  costUsd?: number;
}

export interface AgentResult {
  stopReason: StopReason;
  usage?: Usage;
  /** Turns the agent took, when it has a notion of turns. */
  turns?: number;
  toolCalls?: number;
  /** Time split, when the agent knows it. */
  timings?: { modelMs?: number; rateLimitWaitMs?: number; toolMs?: number; testMs?: number };
  error?: string;
}
