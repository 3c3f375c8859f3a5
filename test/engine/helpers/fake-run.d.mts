import type { Agent } from '../../../src/agents/index.js';
import type { AttemptRunner } from '../../../src/engine/index.js';
import type { AttemptPlan, Cause, Task } from '../../../src/types/index.js';

export function fakeTasks(dir: string, count: number, options?: { version?: string; instruction?: string }): Task[];
export function fakeAgent(spec: string): Agent;
export function defaultCause(plan: AttemptPlan): Cause;
export function fakeRunner(options?: {
  delayMs?: [number, number];
  causeOf?: (plan: AttemptPlan) => Cause | 'throw';
  onStart?: (plan: AttemptPlan) => void;
  /** The gateway usage each attempt reports. */
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number };
}): AttemptRunner;
