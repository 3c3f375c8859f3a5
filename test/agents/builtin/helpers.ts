import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { runLoop, type LoopOptions } from '../../../src/domain/agents/builtin/loop.js';
import { SYSTEM_PROMPT } from '../../../src/domain/agents/builtin/prompt.js';
import { trajectoryWriter, type TrajectoryEvent } from '../../../src/domain/agents/builtin/trajectory.js';
import { createExecutor } from '../../../src/infra/sandbox/index.js';
import type { AgentResult } from '../../../src/core/types/index.js';

export const USAGE = { inputTokens: { total: 100, noCache: 70, cacheRead: 30, cacheWrite: 0 }, outputTokens: { total: 10, text: 8, reasoning: 2 } };

export const call = (id: string, toolName: string, input: unknown): LanguageModelV3Content => ({
  type: 'tool-call',
  toolCallId: id,
  toolName,
  input: JSON.stringify(input),
});
export const say = (text: string): LanguageModelV3Content => ({ type: 'text', text });

/** One model answer per turn, in order: content parts, or an error to throw. Past the end: submit. */
export type Turn = LanguageModelV3Content[] | Error | ((options: LanguageModelV3CallOptions) => Promise<LanguageModelV3GenerateResult>);

export function scriptedModel(turns: Turn[]): MockLanguageModelV3 {
  let index = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const turn = turns[index++] ?? [call(`end-${index}`, 'submit', { summary: 'done' })];
      if (turn instanceof Error) throw turn;
      if (typeof turn === 'function') return turn(options);
      return answer(turn);
    },
  });
}

export function answer(content: LanguageModelV3Content[]): LanguageModelV3GenerateResult {
  const hasCalls = content.some((c) => c.type === 'tool-call');
  return { content, finishReason: { unified: hasCalls ? 'tool-calls' : 'stop', raw: hasCalls ? 'tool_calls' : 'stop' }, usage: USAGE, warnings: [] };
}

/** A workspace with a few files and a local executor: the loop's real tools against a temp dir. */
export function makeWorkspace(root: string): { workspace: string; attemptDir: string } {
  const attemptDir = join(root, 'attempt');
  const workspace = join(attemptDir, 'workspace');
  for (const dir of [workspace, join(attemptDir, 'home'), join(attemptDir, 'tmp'), join(workspace, 'src')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(workspace, 'greeting.txt'), 'hello world\n');
  writeFileSync(join(workspace, 'src', 'a.py'), 'def f():\n    return 1\n');
  return { workspace, attemptDir };
}

export interface LoopRun {
  result: AgentResult;
  events: TrajectoryEvent[];
  model: MockLanguageModelV3;
}

export async function runScripted(
  root: string,
  turns: Turn[],
  overrides: Partial<LoopOptions> & { testCommand?: string; maxTestRuns?: number } = {},
): Promise<LoopRun> {
  const { workspace, attemptDir } = makeWorkspace(root);
  const executor = createExecutor('local', { writable: [workspace], hidden: [], readOnly: [], home: join(attemptDir, 'home'), tmp: join(attemptDir, 'tmp') });
  const model = scriptedModel(turns);
  const file = join(attemptDir, 'trajectory.jsonl');
  const signal = overrides.signal ?? new AbortController().signal;
  const result = await runLoop({
    model,
    modelName: 'mock:model',
    system: SYSTEM_PROMPT,
    instruction: 'Change the greeting to "hello there".',
    tools: {
      root: workspace,
      executor,
      signal,
      testCommand: overrides.testCommand ?? 'grep -q "hello there" greeting.txt && echo "1 passed" || { echo "1 failed"; exit 1; }',
      testTimeoutMs: 30_000,
      maxTestRuns: overrides.maxTestRuns,
      pathAliases: [
        [workspace, '.'],
        [attemptDir, '<attempt>'],
      ],
      remainingMs: () => 60_000,
    },
    limits: { maxTurns: 20 },
    signal,
    trajectory: trajectoryWriter(file),
    sleep: async () => undefined,
    ...overrides,
  });
  return { result, events: writtenEvents(file), model };
}

/** The tool results the model was sent on its `turn`-th call (1-based), by call id. */
export function toolResultsSeen(model: MockLanguageModelV3, turn: number): Record<string, { type: string; value: unknown }> {
  const prompt = model.doGenerateCalls[turn - 1]?.prompt ?? [];
  const out: Record<string, { type: string; value: unknown }> = {};
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') out[part.toolCallId] = part.output as { type: string; value: unknown };
    }
  }
  return out;
}

/** The events as the writer wrote them, typed: every line must be whole JSON. */
export function writtenEvents(file: string): TrajectoryEvent[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TrajectoryEvent);
}
