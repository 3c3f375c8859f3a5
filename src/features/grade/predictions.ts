import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { referenceAgentNames } from '../../domain/agents/index.js';

/** One patch made elsewhere, for one task, by one model: SWE-bench's prediction record. */
export interface Prediction {
  /** SWE-bench's `instance_id`: the task id it is for. */
  taskId: string;
  /** `model_name_or_path`: the agent name its attempt is recorded under. */
  model: string;
  /** `model_patch`: a unified diff against the task's repo. */
  patch: string;
  /** Where it was read, `file:line` (or the patch file), for errors that point at it. */
  where: string;
}

/** SWE-bench's field names (its harness's KEY_INSTANCE_ID, KEY_MODEL, KEY_PREDICTION). */
export const SWE_BENCH_FIELDS = { taskId: 'instance_id', model: 'model_name_or_path', patch: 'model_patch' } as const;

export interface ReadPredictionsOptions {
  /** `--model-name`: the model of predictions that name none, and of a directory of patches (default: the directory's name). */
  modelName?: string;
}

/**
 * Reads predictions from a SWE-bench predictions file (JSONL, one object a line; a JSON array; or a
 * JSON object keyed by instance id)
 * or a directory of `<task-id>.patch` files. Every problem is one InputError naming the file, the
 * line (or array index) and the fix.
 */
export function readPredictions(path: string, options: ReadPredictionsOptions = {}): Prediction[] {
  const file = resolve(path);
  let isDir: boolean;
  try {
    isDir = statSync(file).isDirectory();
  } catch {
    throw new InputError(
      `--predictions ${path}: no such file or directory (fix: give a predictions .jsonl/.json file or a directory of <task-id>.patch files)`,
    );
  }
  const predictions = isDir ? readPatchDir(path, file, options) : readPredictionsFile(path, file, options);
  if (predictions.length === 0)
    throw new InputError(`--predictions ${path}: no predictions in it (fix: add one per task, e.g. {"instance_id": …, "model_patch": …})`);
  const seen = new Map<string, string>();
  for (const p of predictions) {
    const key = `${p.model}\0${p.taskId}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw new InputError(`${p.where}: a second prediction of ${p.model} for ${p.taskId} (first at ${first}) (fix: keep one prediction per task and model)`);
    seen.set(key, p.where);
  }
  return predictions;
}

/** Longest model name accepted: it becomes an agent name in tables, attempt ids and export file names. */
const MAX_MODEL_NAME = 200;

/**
 * A model name becomes the agent name its attempts are recorded, compared and exported under, so
 * it may not be a reference agent's (history and gates would mix a patch with `oracle`'s proofs)
 * and may not hold control characters (a newline would split the terminal's tables and file names).
 */
function checkModelName(model: string, where: string, field: string): string {
  const fix = 'rename the model in the predictions, or pass --model-name';
  if (model.trim() === '') throw new InputError(`${where}: ${field} is empty (fix: name the model that made the patch, or pass --model-name)`);
  // eslint-disable-next-line no-control-regex -- control characters are what this rejects
  if (/[\u0000-\u001f\u007f]/.test(model)) throw new InputError(`${where}: ${field} ${JSON.stringify(model)} holds a control character (fix: ${fix})`);
  if (model.length > MAX_MODEL_NAME) throw new InputError(`${where}: ${field} is ${model.length} characters, over ${MAX_MODEL_NAME} (fix: ${fix})`);
  if (referenceAgentNames().includes(model))
    throw new InputError(`${where}: ${field} ${JSON.stringify(model)} is a reference agent's name, which would mix these patches with its runs (fix: ${fix})`);
  return model;
}

function readPatchDir(shown: string, dir: string, options: ReadPredictionsOptions): Prediction[] {
  const model = checkModelName(
    options.modelName ?? basename(dir),
    options.modelName !== undefined ? '--model-name' : `--predictions ${shown}`,
    options.modelName !== undefined ? 'the name' : "the directory's name",
  );
  const names = readdirSync(dir)
    .filter((n) => n.endsWith('.patch'))
    .sort();
  if (names.length === 0) throw new InputError(`--predictions ${shown}: no .patch files in the directory (fix: name each patch <task-id>.patch)`);
  return names.map((name) => ({ taskId: name.slice(0, -'.patch'.length), model, patch: readFileSync(join(dir, name), 'utf8'), where: join(shown, name) }));
}

function readPredictionsFile(shown: string, file: string, options: ReadPredictionsOptions): Prediction[] {
  const text = readFileSync(file, 'utf8');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let records: unknown;
    try {
      records = JSON.parse(text);
    } catch (error) {
      throw new InputError(`${shown}: not valid JSON (${(error as Error).message}) (fix: a JSON array of predictions, or JSONL with one object a line)`);
    }
    if (!Array.isArray(records)) throw new InputError(`${shown}: expected a JSON array of predictions (fix: [{"instance_id": …, "model_patch": …}, …])`);
    return records.map((r, i) => toPrediction(r, `${shown}[${i}]`, options));
  }
  const keyed = keyedObject(text);
  if (keyed) return Object.entries(keyed).map(([key, r]) => toPrediction(r, `${shown}[${JSON.stringify(key)}]`, options));
  const out: Prediction[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${shown}:${i + 1}`;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      throw new InputError(`${where}: not a JSON object (${(error as Error).message}) (fix: one prediction object per line)`);
    }
    out.push(toPrediction(record, where, options));
  });
  return out;
}

/**
 * SWE-bench's harness also takes a JSON object of predictions keyed by instance id; a single
 * prediction object (one-line JSONL) has `instance_id` itself, so it is never read as one.
 */
function keyedObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || SWE_BENCH_FIELDS.taskId in value) return undefined;
  return value as Record<string, unknown>;
}

function toPrediction(record: unknown, where: string, options: ReadPredictionsOptions): Prediction {
  if (record === null || typeof record !== 'object' || Array.isArray(record))
    throw new InputError(`${where}: a prediction must be a JSON object (fix: {"instance_id": …, "model_name_or_path": …, "model_patch": …})`);
  const r = record as Record<string, unknown>;
  const field = (name: string, fix: string): string => {
    const value = r[name];
    if (typeof value !== 'string') throw new InputError(`${where}: ${name} ${value === undefined ? 'is missing' : 'must be a string'} (fix: ${fix})`);
    return value;
  };
  const taskId = field(SWE_BENCH_FIELDS.taskId, 'set it to the id of the task the patch is for');
  if (taskId === '') throw new InputError(`${where}: instance_id is empty (fix: set it to the id of the task the patch is for)`);
  // SWE-bench writes `null` for a model that produced nothing; that is an empty patch, not bad input.
  const patch = r[SWE_BENCH_FIELDS.patch] === null ? '' : field(SWE_BENCH_FIELDS.patch, 'the unified diff, "" for none');
  const model =
    r[SWE_BENCH_FIELDS.model] === undefined && options.modelName !== undefined
      ? options.modelName
      : field(SWE_BENCH_FIELDS.model, 'name the model that made the patch, or pass --model-name');
  return { taskId, model: checkModelName(model, where, SWE_BENCH_FIELDS.model), patch, where };
}

/** sha256 of what the predictions say (task, model, patch; not where they were read): a grading run's identity. */
export function predictionsDigest(predictions: readonly Prediction[]): string {
  const canonical = predictions.map((p) => [p.taskId, p.model, p.patch]).sort((a, b) => (`${a[1]}\0${a[0]}` < `${b[1]}\0${b[0]}` ? -1 : 1));
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
