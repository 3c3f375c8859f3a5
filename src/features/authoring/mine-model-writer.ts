/**
 * `crucible mine --writer provider:model`: a model rewrites each kept task's instruction. Its
 * calls go through the model gateway as an agent's do, so they are metered (tokens and cost from
 * the gateway's own reading of each answer), can be recorded (`--record DIR`) and replayed
 * offline (`--replay DIR`), and the real key never leaves the gateway.
 *
 * What the model is shown is built here from an InstructionSource alone: the commit message
 * (trailers and diff-like lines dropped) and the fail-to-pass tests' names with their assertion
 * messages at the starting point. The fix and the test files are not in that source, so no
 * prompt can carry them.
 *
 * An answer is kept under `<dest>/.mine/instructions/<task>.json` with the request it answered:
 * running mine again (a resumed run, another `--runs`) asks again only when the request changed.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Usage } from '../../core/types/index.js';
import { createLanguageModel, parseModelSpec, type Agent, type ModelSpec } from '../../domain/agents/index.js';
import { startRunModels, type ModelRunOptions, type RunModels } from '../../engine/index.js';
import { instructionParts, type InstructionSource } from './mine-instruction.js';
import type { InstructionWriter, WrittenInstruction } from './mine-writer.js';

/** Changes when the prompt does, so a stored answer to the old prompt is not taken for the new one. */
const PROMPT_VERSION = 1;
/** An instruction is a few paragraphs; a cap keeps a runaway answer from costing more. */
const MAX_OUTPUT_TOKENS = 1024;
/** The cassettes' agent part: `<task>/mine-writer/1`. */
export const WRITER_AGENT_NAME = 'mine-writer';

const SYSTEM = [
  'You write the task statement a coding agent is given to fix a bug in a repository.',
  'You are given what a commit message said and which tests fail before the fix, with their failure messages.',
  'Write it as an issue a user would file: what is wrong and how it shows, in plain words and Markdown.',
  'Name every failing test exactly as given and say it must pass, with every other test still passing.',
  'Do not propose a fix, do not invent code, file names or details the material does not give, and do not mention a commit.',
  'Answer with the task statement only, at most 200 words.',
].join('\n');

export interface WriterRequest {
  system: string;
  prompt: string;
}

/** The whole of what the model sees for one task: made from the source's parts and nothing else. */
export function writerRequest(source: InstructionSource): WriterRequest {
  const parts = instructionParts(source);
  const prompt = [
    `Problem (from the commit message): ${parts.problem}`,
    ...(parts.body !== '' ? ['', 'More from the commit message:', parts.body] : []),
    '',
    'Failing tests (they fail now and must pass once it is fixed), with their first failure message:',
    parts.failingTests,
  ].join('\n');
  return { system: SYSTEM, prompt };
}

/** `--writer provider:model`: checked now (the spec); the gateway starts at the first call that needs it. */
export function modelInstructionWriter(specText: string, options: ModelRunOptions): InstructionWriter {
  const spec = parseModelSpec(specText);
  const agent: Agent = {
    name: WRITER_AGENT_NAME,
    modelSpec: spec,
    run: () => Promise.reject(new Error('the instruction writer is no agent: it is never run on a task')),
  };
  let models: Promise<RunModels | undefined> | undefined;
  return {
    spec: specText,
    async write(source, task) {
      const request = writerRequest(source);
      const key = createHash('sha256')
        .update(JSON.stringify({ v: PROMPT_VERSION, model: specText, request }))
        .digest('hex');
      const stored = join(task.stateDir, `${task.id}.json`);
      const earlier = await readStored(stored, key);
      if (earlier !== undefined) return { ...earlier, reused: true };
      models ??= startRunModels([agent], options);
      const written = await callModel(await models, agent, spec, task.id, request);
      if (written.error === undefined) {
        await mkdir(task.stateDir, { recursive: true });
        const temp = `${stored}.new-${process.pid}`;
        await writeFile(temp, `${JSON.stringify({ key, text: written.text, ...(written.usage ? { usage: written.usage } : {}) })}\n`);
        await rename(temp, stored);
      }
      return written;
    },
    async close() {
      await (await models)?.close();
    },
  };
}

async function callModel(models: RunModels | undefined, agent: Agent, spec: ModelSpec, taskId: string, request: WriterRequest): Promise<WrittenInstruction> {
  let session: ReturnType<RunModels['openAttempt']>;
  try {
    session = models?.openAttempt({ attemptId: `${WRITER_AGENT_NAME}-${taskId}`, taskId, trial: 1 }, agent);
  } catch (error) {
    // A replay with no recording of this task.
    return { text: '', error: (error as Error).message };
  }
  if (session === undefined) return { text: '', error: 'no gateway session for the writer' };
  let text = '';
  let error: string | undefined;
  try {
    const model = await createLanguageModel(spec, session.access);
    const { generateText } = await import('ai');
    const answer = await generateText({ model, system: request.system, prompt: request.prompt, maxOutputTokens: MAX_OUTPUT_TOKENS, maxRetries: 2 });
    text = answer.text.trim();
    if (text === '') error = 'the model answered with no text';
  } catch (caught) {
    error = `${(caught as Error).message.split('\n')[0] ?? 'the call failed'}`;
  }
  const usage = session.finish({ stopReason: error === undefined ? 'submitted' : 'error' }).usage;
  return { text: error === undefined ? `${text}\n` : '', ...(usage ? { usage } : {}), ...(error !== undefined ? { error } : {}) };
}

async function readStored(file: string, key: string): Promise<{ text: string; usage?: Usage } | undefined> {
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as { key?: string; text?: unknown; usage?: Usage };
    if (stored.key !== key || typeof stored.text !== 'string') return undefined;
    return { text: stored.text, ...(stored.usage ? { usage: stored.usage } : {}) };
  } catch {
    return undefined;
  }
}
