/** Types for scripted-agent-upstream.mjs (a scripted stand-in for a model, not a model: see its header). */
export type PlanName = 'fix' | 'tamper';

/** One step of a plan, protocol-neutral; each protocol module maps it to the agent's own tools. */
export type PlanStep = { kind: 'read'; path: string } | { kind: 'write'; path: string; content: string; before: string } | { kind: 'final'; text: string };

export interface TaskPlan {
  taskId: string;
  /** Text of the task's instruction that identifies it in a request. */
  match: string;
  fix: PlanStep[];
  /** Present for tasks that have a tamper plan (js-slugify). */
  tamper?: PlanStep[];
}

export interface ScriptedRequest {
  path: string;
  query: URLSearchParams;
  json: Record<string, unknown>;
  plans: TaskPlan[];
  planName: PlanName;
}

export interface ScriptedReply {
  status: number;
  headers?: Record<string, string>;
  /** A JSON body (object) or raw text. */
  body?: unknown;
  /** A streamed body: each SSE event's exact text, `\n\n` terminator included. */
  events?: string[];
}

export declare function startScriptedAgentUpstream(options?: { port?: number; plan?: PlanName; root?: string }): Promise<{
  baseUrl: string;
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}>;
export declare function estimateTokens(text: string): number;
