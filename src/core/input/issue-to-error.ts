import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatFieldPath, YamlSource, type FieldPath } from './yaml-source.js';
import { editDistance } from '../format/index.js';

type Issue = z.core.$ZodIssue;

/**
 * What a fix may point at, per kind of file: where its format is written down, and examples for the
 * fields whose format a generic message cannot show. The task-set file's are the default.
 */
export interface SchemaReference {
  /** e.g. "schema/taskset.schema.json (`crucible schema`)" or "docs/packs.md". */
  reference: string;
  examples?: Readonly<Record<string, string>>;
}

/**
 * The one-line error for a file of any kind (a pack's manifest, a baseline, a pricing file, a
 * cassette line, a run manifest) that failed its schema: the file's text is read again for the
 * line of the field (JSON is YAML), so the message names file:line, field, problem and fix like a
 * task set's. `text` must be what was parsed.
 */
export function schemaError(file: string, text: string, schema: z.ZodType, issues: readonly Issue[], about: SchemaReference): ConfigError {
  let source: YamlSource;
  try {
    source = YamlSource.parse(file, text);
  } catch {
    // Text only the JSON reader takes (it was parsed already): the field and fix without a line.
    source = YamlSource.parse(file, 'null');
  }
  return issueToError(source, schema, issues, [], [], about);
}

/**
 * Turns the first zod issue into a one-line ConfigError: file:line, the field, what is wrong and
 * how to fix it. `base` is where the validated value sits in the file; `fallbacks` are other places
 * the value may have come from (a task's field may be inherited from `defaults`).
 */
export function issueToError(
  source: YamlSource,
  schema: z.ZodType,
  issues: readonly Issue[],
  base: FieldPath,
  fallbacks: FieldPath[] = [],
  about: SchemaReference = TASKSET_REFERENCE,
): ConfigError {
  const locate = (issuePath: Issue['path']): { inner: FieldPath; full: FieldPath } => {
    const inner = issuePath.filter((p): p is string | number => typeof p !== 'symbol');
    const located = [base, ...fallbacks].find((root) => source.has([...root, ...inner])) ?? base;
    return { inner, full: [...located, ...inner] };
  };
  const union = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
  if (union?.code === 'invalid_union') {
    const { inner, full } = locate(union.path);
    const mixed = mixedForms(schema, union, inner);
    if (mixed) return new ConfigError({ file: source.file, ...source.position(full), field: formatFieldPath(full) }, mixed.problem, mixed.fix);
  }

  const issue = pickIssue(issues);
  const { inner, full } = locate(issue.path);

  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    // zod settles a union on the form whose keys matched; a key of another form means both were mixed.
    const forms = unionForms(schema, inner);
    const other = forms.find((form) => form.includes(key));
    const present = forms.flat().filter((k) => k !== key && !other?.includes(k) && source.has([...full, k]));
    const oneForm = `use one form: ${forms.map((form) => `{ ${form.join(', ')} }`).join(' or ')}`;
    if (other && present.length > 0) {
      return new ConfigError(
        { file: source.file, ...source.position(full), field: formatFieldPath(full) },
        `${[...present, key].join(', ')}: fields of different forms cannot be used together`,
        oneForm,
      );
    }
    // Only fields of another form, but not all it needs: that form's missing field is the problem.
    const required = other ? (requiredForms(schema, inner)[forms.indexOf(other)] ?? other) : [];
    const lacking = required.find((k) => !source.has([...full, k]));
    if (other && lacking !== undefined) {
      return new ConfigError(
        { file: source.file, ...source.position(full), field: formatFieldPath([...full, lacking]) },
        'required field is missing',
        `add it (${oneForm})`,
      );
    }
    // A field of another form, on a value a discriminator (`kind`) gave this form: not a typo.
    if (other) {
      return new ConfigError(
        { file: source.file, ...source.position(full, key), field: formatFieldPath([...full, key]) },
        `"${key}" belongs to another form of this field`,
        oneForm,
      );
    }
    const known = knownKeys(schema, inner);
    const guess = closest(key, known);
    const fix = guess ? `did you mean "${guess}"?` : known.length ? `allowed fields: ${known.join(', ')}` : 'remove it';
    return new ConfigError({ file: source.file, ...source.position(full, key), field: formatFieldPath([...full, key]) }, `unknown field "${key}"`, fix);
  }

  const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
  return new ConfigError(
    { file: source.file, ...source.position(full), field: formatFieldPath(full) },
    missing ? 'required field is missing' : describeIssue(issue),
    fixFor(issue, missing, full, about),
  );
}

/**
 * A union of objects (repo: `{path}` or `{git, commit}`) where every form rejects some of the keys:
 * the value mixes two forms. Names both forms rather than one branch's "unknown field".
 */
function mixedForms(schema: z.ZodType, issue: Issue, path: FieldPath): { problem: string; fix: string } | undefined {
  if (issue.code !== 'invalid_union' || issue.errors.length < 2) return undefined;
  const rejected = issue.errors.map((branch) => branch.find((i) => i.code === 'unrecognized_keys' && i.path.length === 0));
  if (rejected.some((i) => i === undefined)) return undefined;
  const shapes = unionForms(schema, path);
  const order = shapes.flat();
  const keys = [...new Set(rejected.flatMap((i) => (i?.code === 'unrecognized_keys' ? i.keys : [])))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  // A key no form knows is a typo, not a mix: the unknown-field message names its near match.
  if (keys.some((k) => !order.includes(k))) return undefined;
  const forms = shapes.map((form) => `{ ${form.join(', ')} }`);
  return {
    problem: `${keys.join(', ')}: fields of different forms cannot be used together`,
    fix: forms.length > 1 ? `use one form: ${forms.join(' or ')}` : 'keep one of them',
  };
}

/** Unknown keys first: a typo usually causes the other issues too. */
function pickIssue(issues: readonly Issue[]): Issue {
  const first = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
  if (!first) throw new Error('zod reported failure without issues');
  if (first.code === 'invalid_union') {
    // Report the branch that got furthest, not "Invalid input".
    const branches = first.errors.map((branch) => branch.filter((i) => i.code !== 'invalid_type' || i.path.length > 0));
    const deepest = branches.sort((a, b) => depth(b) - depth(a))[0];
    if (deepest && deepest.length > 0) {
      const nested = pickIssue(deepest);
      return { ...nested, path: [...first.path, ...nested.path] } as Issue;
    }
  }
  return first;
}

function depth(issues: Issue[]): number {
  return Math.max(0, ...issues.map((i) => i.path.length));
}

function describeIssue(issue: Issue): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/** Examples for the task-set fields whose format a generic message cannot show. */
const FIELD_EXAMPLES: Record<string, string> = {
  agent_timeout: 'write a duration such as 90s, 10m or 1h',
  test_timeout: 'write a duration such as 90s, 10m or 1h',
  setup_timeout: 'write a duration such as 90s, 10m or 1h',
  cpu_time: 'write a duration such as 90s, 10m or 1h',
  memory: 'write a size such as 512m or 2g',
  file_size: 'write a size such as 512m or 2g',
  workspace_disk: 'write a size such as 512m or 2g',
  change_size: 'write a size such as 512m or 2g',
  storage: 'write a size such as 512m or 2g',
  image: 'write an image reference such as python:3.12-slim, or pin one with name@sha256:<digest>',
  platform: 'write os/arch[/variant], e.g. linux/amd64 or linux/arm64/v8',
  id: 'use letters, digits, ".", "_" and "-", e.g. fix-parser-1',
  // An agent profile's name (the only `name` field of the task-set format).
  name: 'use lowercase letters, digits and "-", e.g. my-agent',
  instruction: 'give exactly one of instruction (the text) or instruction_file (a path)',
  pass_to_pass: 'write all_others or a list of test ids',
  unsafe_commands: 'write a JavaScript regular expression, e.g. "curl .*\\| *sh"; escape ( [ { with a backslash',
};

const TASKSET_REFERENCE: SchemaReference = { reference: 'schema/taskset.schema.json (`crucible schema`)', examples: FIELD_EXAMPLES };

/** Every issue gets a fix: what to write instead, in the terms of the field. */
function fixFor(issue: Issue, missing: boolean, path: FieldPath, about: SchemaReference): string {
  if (missing) return 'add it';
  const field = [...path].reverse().find((p): p is string => typeof p === 'string') ?? '';
  const example = about.examples?.[field];
  const reference = about.reference;
  switch (issue.code) {
    case 'invalid_value':
      return `use one of: ${issue.values.map(String).join(', ')}`;
    case 'invalid_type':
      return example ?? `write ${article(issue.expected)}`;
    case 'too_small':
      return tooSmallFix(issue);
    case 'too_big':
      return issue.origin === 'array' ? `list at most ${String(issue.maximum)}` : `use at most ${String(issue.maximum)}`;
    case 'custom':
      // The duration ceiling (schema.ts) is a refinement; everything else custom has its own words.
      return /^longer than/.test(issue.message) ? 'use a shorter duration, e.g. 24h' : (example ?? `see ${reference}`);
    case 'not_multiple_of':
      return `use a multiple of ${String(issue.divisor)}`;
    case 'invalid_key':
    case 'invalid_element':
      return `see ${reference} for the accepted keys`;
    default:
      return example ?? `see ${reference} for the accepted shapes`;
  }
}

function tooSmallFix(issue: Extract<Issue, { code: 'too_small' }>): string {
  const min = Number(issue.minimum);
  if (issue.origin === 'array') return `list at least ${min} item${min === 1 ? '' : 's'}`;
  if (issue.origin === 'string') return min <= 1 ? 'write a non-empty value' : `write at least ${min} characters`;
  return issue.inclusive ? `use a number ≥ ${min}` : `use a number > ${min}`;
}

function article(expected: string): string {
  const words: Record<string, string> = {
    string: 'text (quote it if YAML reads it as something else)',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
    array: 'a list, e.g. [a, b]',
    object: 'a mapping of fields (key: value)',
  };
  return words[expected] ?? `a value of type ${expected}`;
}

/** Keys the schema accepts at `path`, found by walking through wrappers, unions and arrays. */
function knownKeys(schema: z.ZodType, path: FieldPath): string[] {
  const found = new Set<string>();
  const visit = (node: unknown, rest: FieldPath): void => {
    const def = (node as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
    if (!def) return;
    switch (def.type) {
      case 'optional':
      case 'default':
      case 'nullable':
      case 'readonly':
        return visit(def.innerType, rest);
      case 'pipe':
        return visit(def.in, rest);
      case 'union':
        for (const option of def.options as unknown[]) visit(option, rest);
        return;
      case 'array':
        return visit(def.element, rest.slice(1));
      case 'record': {
        // A record keyed by an enum (policy.severities) knows its keys like an object does.
        const keyDef = (def.keyType as { _zod?: { def?: { type?: string; entries?: Record<string, string> } } } | undefined)?._zod?.def;
        if (rest.length === 0 && keyDef?.type === 'enum') for (const key of Object.values(keyDef.entries ?? {})) found.add(key);
        return rest.length === 0 ? undefined : visit(def.valueType, rest.slice(1));
      }
      case 'object': {
        const shape = def.shape as Record<string, unknown>;
        if (rest.length === 0) {
          for (const key of Object.keys(shape)) found.add(key);
          return;
        }
        const [head, ...tail] = rest;
        if (typeof head === 'string' && head in shape) visit(shape[head], tail);
        return;
      }
    }
  };
  visit(schema, path);
  return [...found].filter((k) => !k.startsWith('$'));
}

/** The key sets of the object forms a union accepts at `path` (repo: [path], [git, commit]). */
function unionForms(schema: z.ZodType, path: FieldPath): string[][] {
  return unionOptions(schema, path).map((option) => knownKeys(option, []));
}

/** The keys each form of the union at `path` cannot do without (neither optional nor defaulted). */
function requiredForms(schema: z.ZodType, path: FieldPath): string[][] {
  return unionOptions(schema, path).map((option) => {
    const shape = (option as { _zod?: { def?: { shape?: Record<string, { _zod?: { def?: { type?: string } } }> } } })._zod?.def?.shape ?? {};
    return Object.keys(shape).filter((key) => !['optional', 'default'].includes(String(shape[key]?._zod?.def?.type)));
  });
}

function unionOptions(schema: z.ZodType, path: FieldPath): z.ZodType[] {
  let node: unknown = schema;
  for (const part of [...path, null]) {
    for (;;) {
      const def = (node as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
      if (!def) return [];
      if (['optional', 'default', 'nullable', 'readonly'].includes(String(def.type))) node = def.innerType;
      else if (def.type === 'pipe') node = def.in;
      else if (part === null && def.type === 'union') return def.options as z.ZodType[];
      else if (part === null) return [];
      else if (def.type === 'array') {
        node = def.element;
        break;
      } else if (def.type === 'object' && typeof part === 'string') {
        node = (def.shape as Record<string, unknown>)[part];
        break;
      } else return [];
    }
  }
  return [];
}

function closest(word: string, candidates: string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase(), limit);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
