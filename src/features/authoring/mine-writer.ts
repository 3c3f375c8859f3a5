/**
 * `crucible mine --writer`: who writes a mined task's instruction. The default drafts it
 * (mine-instruction.ts); `template:FILE` fills the user's own text with the same parts, so a team
 * can say things its way (a house style, a line about where the code lives); `provider:model`
 * has a model rewrite it (mine-model-writer.ts). Either only ever sees the parts, which come from
 * the commit message and the failing tests: it cannot put the fix or a test file's text into an
 * instruction, whatever it says.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import type { Usage } from '../../core/types/index.js';
import { instructionParts, writeInstruction, type InstructionParts, type InstructionSource } from './mine-instruction.js';

/** One task's instruction as a writer gave it. */
export interface WrittenInstruction {
  text: string;
  /** A model writer's metering of this task's call (the gateway's count, not the SDK's). */
  usage?: Usage;
  /** Taken from an earlier run's answer to the same request: no call made. */
  reused?: true;
  /** Why the writer gave no text: the task keeps the drafted instruction. */
  error?: string;
}

export interface InstructionWriter {
  /** The `--writer` value, recorded in mine.json. */
  readonly spec: string;
  /** `stateDir`: where a writer may keep answers between runs (`<dest>/.mine/instructions`). */
  write(source: InstructionSource, task: { id: string; stateDir: string }): Promise<WrittenInstruction>;
  close(): Promise<void>;
}

/** A template filled with one task's parts. */
export type TemplateFill = (source: InstructionSource) => string;

const PLACEHOLDERS = ['problem', 'body', 'failing_tests', 'drafted'] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];

/** The `template:FILE` writer a `--writer` value names; undefined for another kind; InputError (exit 2) for a template that cannot be used. */
export function templateInstructionWriter(spec: string, cwd: string): InstructionWriter | undefined {
  const template = /^template:(.+)$/.exec(spec)?.[1];
  if (template === undefined) return undefined;
  const fill = readTemplate(spec, template, cwd);
  return { spec, write: async (source) => ({ text: fill(source) }), close: async () => undefined };
}

function readTemplate(spec: string, template: string, cwd: string): TemplateFill {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, template), 'utf8');
  } catch (error) {
    throw new InputError(`--writer ${spec}: cannot read ${template} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}) (fix: name a text file)`);
  }
  return templateWriter(text, template);
}

/** Fills `{{problem}}`, `{{body}}`, `{{failing_tests}}` and `{{drafted}}` (the default instruction whole). */
export function templateWriter(text: string, file: string): TemplateFill {
  const used = [...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((m) => m[1] ?? '');
  const unknown = used.find((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown !== undefined) throw new InputError(`${file}: unknown placeholder {{${unknown}}} (fix: use ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')})`);
  if (used.length === 0)
    throw new InputError(`${file}: no placeholder, so every task would get the same instruction (fix: use {{problem}} and {{failing_tests}})`);
  return (source) => {
    const parts: InstructionParts = instructionParts(source);
    const values: Record<Placeholder, string> = {
      problem: parts.problem,
      body: parts.body,
      failing_tests: parts.failingTests,
      drafted: writeInstruction(source).trimEnd(),
    };
    const filled = text.replace(/\{\{\s*([^}]*?)\s*\}\}/g, (_, name: string) => values[name as Placeholder]);
    // An empty {{body}} leaves blank lines behind: at most one in a row, and one newline at the end.
    return `${filled.replace(/\n{3,}/g, '\n\n').trim()}\n`;
  };
}
