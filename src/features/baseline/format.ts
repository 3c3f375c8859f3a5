import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CAUSES, VERDICTS, type BaselineCell } from '../../core/types/index.js';
import { schemaError } from '../../core/input/index.js';
import { InputError } from '../../core/errors.js';

export const BASELINE_VERSION = 1;
export const BASELINE_SCHEMA_ID = 'https://crucible.dev/schema/baseline.schema.json';

/** Who an attempt's agent was: the spec alone does not say which model or agent release answered. */
const agentIdentitySchema = z
  .object({
    spec: z.string().min(1).describe('The agent spec as the run named it, e.g. oracle or claude-code:claude-sonnet-4-5'),
    model: z.string().optional().describe('The model, when the agent calls one'),
    agentVersion: z.string().optional().describe("An external agent's installed version (attempt.json agentInfo.version)"),
    profileHash: z.string().optional().describe("sha256 of an external agent's profile"),
  })
  .strict();

const attemptOutcomeSchema = z
  .object({
    trial: z.number().int().min(0),
    verdict: z.enum(VERDICTS),
    cause: z.enum(CAUSES),
    failedChecks: z.array(z.string()).describe('Ids of the checks that did not pass, sorted'),
  })
  .strict() satisfies z.ZodType<BaselineCell>;

const entrySchema = z
  .object({
    taskId: z.string().min(1),
    taskVersion: z.string(),
    agent: agentIdentitySchema,
    attempts: z.array(attemptOutcomeSchema).min(1),
  })
  .strict();

export const baselineFileSchema = z
  .object({
    version: z.literal(BASELINE_VERSION).describe('Format version of this file'),
    createdAt: z.string().describe('When the baseline was saved (the only timestamp in the file)'),
    sourceRun: z.string().min(1).describe('The run the baseline was saved from'),
    taskSet: z.string().describe('The task-set file, relative to this file, with / separators'),
    trials: z.number().int().min(1).describe('Attempts per task and agent in the source run'),
    entries: z.array(entrySchema).describe('One per (task, task version, agent), ordered by agent then task'),
  })
  .strict();

export type AgentIdentity = z.infer<typeof agentIdentitySchema>;
export type BaselineAttempt = z.infer<typeof attemptOutcomeSchema>;
export type BaselineEntry = z.infer<typeof entrySchema>;
export type BaselineFile = z.infer<typeof baselineFileSchema>;

/** The JSON Schema of a baseline file; schema/baseline.schema.json is this, kept fresh by a test. */
export function baselineJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(baselineFileSchema, { io: 'input' }) as Record<string, unknown>;
  return { ...schema, $id: BASELINE_SCHEMA_ID, title: 'Crucible baseline' };
}

/**
 * Pretty JSON with every object's keys sorted: the same baseline always has the same bytes, so a
 * committed baseline diffs only where an outcome changed.
 */
export function serializeBaseline(baseline: BaselineFile): string {
  return `${JSON.stringify(sortKeys(baseline), null, 2)}\n`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Reads and checks a baseline file; anything wrong is one InputError naming the file and field. */
export function readBaseline(file: string): BaselineFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? 'error'})`;
    throw new InputError(`baseline ${file}: ${why} (fix: pass a file written by \`crucible baseline save <run-id> --out FILE\`)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InputError(`baseline ${file}: not valid JSON (fix: save it again with \`crucible baseline save <run-id> --out ${file}\`)`);
  }
  const version = (parsed as { version?: unknown } | null)?.version;
  if (parsed !== null && typeof parsed === 'object' && version !== BASELINE_VERSION) {
    throw new InputError(
      `baseline ${file}: version ${JSON.stringify(version)} is not one this Crucible reads (${BASELINE_VERSION}) (fix: save it again with this version of Crucible)`,
    );
  }
  const result = baselineFileSchema.safeParse(parsed);
  if (!result.success)
    throw schemaError(file, text, baselineFileSchema, result.error.issues, {
      reference: 'schema/baseline.schema.json, or save it again with `crucible baseline save <run-id>`',
    });
  return result.data;
}

/** A readable key for an identity: the spec, then what pins it further. */
export function identityText(id: AgentIdentity): string {
  const extra = [
    id.model !== undefined && !id.spec.endsWith(`:${id.model}`) ? `model ${id.model}` : undefined,
    id.agentVersion !== undefined ? `v${id.agentVersion}` : undefined,
  ].filter((x): x is string => x !== undefined);
  return extra.length > 0 ? `${id.spec} (${extra.join(', ')})` : id.spec;
}
