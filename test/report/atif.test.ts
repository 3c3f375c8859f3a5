import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { trajectoryWriter } from '../../src/domain/agents/builtin/trajectory.js';
import { atifProblems, formatTrajectoryText, parseTrajectory, toAtif } from '../../src/features/report/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** ATIF's published schema, written from Harbor's RFC 0001 (the fixture names its source). */
const schema = JSON.parse(readFileSync('test/fixtures/atif/atif-v1.7.schema.json', 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }).compile(schema);

function schemaErrors(doc: unknown): string[] {
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** A trajectory.jsonl as the built-in agent writes it, through its own writer. */
function builtinTrajectory(): string {
  const file = join(tempDir(), 'trajectory.jsonl');
  let clock = 0;
  const writer = trajectoryWriter(file, () => (clock += 250));
  writer.write({
    type: 'start',
    v: 1,
    model: 'openai:gpt-4.1-mini',
    system: 'You fix bugs.',
    instruction: 'Fix slugify.',
    tools: ['bash', 'write_file', 'submit'],
    limits: { maxTurns: 20 },
  });
  writer.write({
    type: 'turn',
    turn: 1,
    text: 'Let me look.',
    reasoning: 'The slug keeps a trailing dash.',
    toolCalls: [
      { id: 'call_1', name: 'bash', input: { command: 'cat src/slugify.mjs' } },
      { id: 'call_2', name: 'bash', input: 'ls' },
    ],
    finishReason: 'tool-calls',
    usage: { inputTokens: 1200, outputTokens: 40, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 12 },
    modelMs: 700,
  });
  writer.write({
    type: 'tool',
    turn: 1,
    id: 'call_1',
    name: 'bash',
    input: { command: 'cat src/slugify.mjs' },
    ok: true,
    output: 'export function slugify…',
    outputChars: 24,
    ms: 9,
  });
  writer.write({ type: 'tool', turn: 1, id: 'call_2', name: 'bash', input: 'ls', ok: false, output: 'ls: exit 2', outputChars: 10, ms: 3 });
  writer.write({ type: 'nudge', turn: 2, text: 'Call submit when done.' });
  writer.write({
    type: 'turn',
    turn: 2,
    system: 'A second system prompt.',
    model: 'gpt-4.1-mini-2025-04-14',
    toolCalls: [{ id: 'call_3', name: 'submit', input: { summary: 'trimmed dashes' } }],
    finishReason: 'tool-calls',
    usage: { inputTokens: 1500, outputTokens: 10, cacheReadTokens: 1200, cacheWriteTokens: 0, reasoningTokens: 0 },
    modelMs: 300,
  });
  writer.write({ type: 'end', stopReason: 'submitted', turns: 2, toolCalls: 3, summary: 'trimmed dashes' });
  appendFileSync(file, '{"kind":"external","note":"a line of another shape"}\n');
  return readFileSync(file, 'utf8');
}

const SOURCE = { sessionId: 'js-slugify.openai-gpt-4-1-mini.0.abc', agentName: 'openai:gpt-4.1-mini', agentVersion: '0.1.0', costUsd: 0.0021 };

describe('ATIF out: toAtif', () => {
  it("writes the built-in agent's trajectory as a valid ATIF document, every line accounted for", () => {
    const doc = toAtif(builtinTrajectory(), SOURCE);
    expect(schemaErrors(doc)).toEqual([]);
    expect(atifProblems(doc)).toEqual([]);
    expect(doc.schema_version).toBe('ATIF-v1.7');
    expect(doc.agent).toMatchObject({ name: 'openai:gpt-4.1-mini', version: '0.1.0', model_name: 'openai:gpt-4.1-mini' });
    expect(doc.steps.map((s) => [s.step_id, s.source])).toEqual([
      [1, 'system'],
      [2, 'user'],
      [3, 'agent'],
      [4, 'user'],
      [5, 'system'],
      [6, 'agent'],
      [7, 'system'],
    ]);
    const first = doc.steps[2];
    expect(first).toMatchObject({
      message: 'Let me look.',
      reasoning_content: 'The slug keeps a trailing dash.',
      tool_calls: [
        { tool_call_id: 'call_1', function_name: 'bash', arguments: { command: 'cat src/slugify.mjs' } },
        { tool_call_id: 'call_2', function_name: 'bash', arguments: { input: 'ls' } },
      ],
      metrics: { prompt_tokens: 1200, completion_tokens: 40, cached_tokens: 1024 },
    });
    expect(first?.observation?.results.map((r) => [r.source_call_id, r.content, r.extra?.ok])).toEqual([
      ['call_1', 'export function slugify…', true],
      ['call_2', 'ls: exit 2', false],
    ]);
    expect(doc.steps[5]?.model_name).toBe('gpt-4.1-mini-2025-04-14');
    expect(doc.steps[6]?.extra).toEqual({ crucible_event: { kind: 'external', note: 'a line of another shape' } });
    expect(doc.final_metrics).toEqual({
      total_prompt_tokens: 2700,
      total_completion_tokens: 50,
      total_cached_tokens: 2224,
      total_cost_usd: 0.0021,
      total_steps: 7,
    });
    expect(doc.notes).toBe('stopped: submitted after 2 turns and 3 tool calls');
  });
});

describe('ATIF in: the trajectory reader', () => {
  it('round trip: what show draws from the ATIF document carries every message, call and result of the original', () => {
    const jsonl = builtinTrajectory();
    const back = parseTrajectory(JSON.stringify(toAtif(jsonl, SOURCE), null, 2));
    expect(back.unreadableLines).toBe(0);
    const text = formatTrajectoryText(back);
    for (const piece of [
      'You fix bugs.',
      'Fix slugify.',
      'Let me look.',
      'cat src/slugify.mjs',
      'export function slugify…',
      'ls: exit 2',
      'Call submit when done.',
      'trimmed dashes',
    ])
      expect(text).toContain(piece);
    expect(back.events.filter((e) => e.role === 'tool').map((e) => e.title)).toEqual(['← bash export function slugify…', '← bash ls: exit 2']);
    expect(back.events.find((e) => e.role === 'assistant')?.tokens).toBe(1240);
  });

  it('reads an ATIF document another harness wrote (multimodal message parts, no timestamps), and its problems are named by path', () => {
    const harbor = {
      schema_version: 'ATIF-v1.6',
      session_id: 'trial-7',
      agent: { name: 'terminus-2', version: '2.0.0', model_name: 'anthropic/claude-sonnet-4-5' },
      steps: [
        { step_id: 1, source: 'user', message: [{ type: 'text', text: 'Create hello.txt.' }] },
        {
          step_id: 2,
          source: 'agent',
          message: 'Creating it.',
          tool_calls: [{ tool_call_id: 't1', function_name: 'bash_command', arguments: { keystrokes: 'echo hi > hello.txt\n' } }],
          observation: { results: [{ source_call_id: 't1', content: '$ ' }] },
        },
      ],
    };
    expect(schemaErrors(harbor)).toEqual([]);
    expect(atifProblems(harbor)).toEqual([]);
    const text = formatTrajectoryText(parseTrajectory(JSON.stringify(harbor)));
    expect(text).toContain('user: Create hello.txt.');
    expect(text).toContain('→ bash_command {"keystrokes":"echo hi > hello.txt\\n"}');

    const broken: Record<string, unknown> = structuredClone(harbor);
    const steps = broken.steps as Array<Record<string, unknown>>;
    (steps[0] as Record<string, unknown>).model_name = 'x';
    (steps[1] as Record<string, unknown>).step_id = 3;
    ((steps[1]?.observation as { results: Array<Record<string, unknown>> }).results[0] as Record<string, unknown>).source_call_id = 'nope';
    delete (broken.agent as Record<string, unknown>).version;
    expect(atifProblems(broken)).toEqual([
      'agent.version: missing',
      'steps[0].model_name: agent-only, on a step whose source is not agent',
      'steps[1].step_id: expected 2 (sequential from 1), got 3',
      'steps[1].observation.results[0].source_call_id: unknown tool_call_id "nope" (not a call of this step)',
    ]);
    // The schema, which cannot say the rules between fields, still refuses the missing version.
    expect(schemaErrors(broken)).toContain("/agent must have required property 'version'");
  });
});
