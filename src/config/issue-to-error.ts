import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { formatFieldPath, type FieldPath, type YamlSource } from './yaml-source.js';

type Issue = z.core.$ZodIssue;

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
): ConfigError {
  const issue = pickIssue(issues);
  const inner = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const located = [base, ...fallbacks].find((root) => source.has([...root, ...inner])) ?? base;
  const full = [...located, ...inner];

  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const known = knownKeys(schema, inner);
    const guess = closest(key, known);
    const fix = guess ? `did you mean "${guess}"?` : known.length ? `allowed fields: ${known.join(', ')}` : 'remove it';
    return new ConfigError(
      { file: source.file, ...source.position(full, key), field: formatFieldPath([...full, key]) },
      `unknown field "${key}"`,
      fix,
    );
  }

  const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
  return new ConfigError(
    { file: source.file, ...source.position(full), field: formatFieldPath(full) },
    missing ? 'required field is missing' : describeIssue(issue),
    fixFor(issue, missing),
  );
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

function fixFor(issue: Issue, missing: boolean): string | undefined {
  if (missing) return 'add it';
  if (issue.code === 'invalid_value') return `use one of: ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'invalid_union') return 'see schema/taskset.schema.json for the accepted shapes';
  return undefined;
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

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
