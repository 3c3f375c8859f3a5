/**
 * Writes `fail_to_pass` / `pass_to_pass` into one task of a task-set file without rewriting the
 * rest of it: each value is spliced in as text over the old one (after its key's colon), so every
 * other byte — comments, quoting, blank lines — stays as the author wrote it. The result is parsed
 * back and compared with what was meant; when the splice cannot be proved right (a key missing, an
 * odd layout), the `yaml` Document API sets the values instead, which keeps comments.
 */
import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { InputError } from '../../core/errors.js';

export interface TestIdFill {
  failToPass: readonly string[];
  passToPass: 'all_others' | readonly string[];
}

/** Lists this long or shorter are written on one line (`[a, b]`); longer ones one id a line. */
const FLOW_MAX = 3;

export function fillTestIds(text: string, file: string, taskId: string, fill: TestIdFill): string {
  const doc = parseDocument(text);
  const tests = testsMapOf(doc, file, taskId);
  const values: Array<[string, 'all_others' | readonly string[]]> = [
    ['fail_to_pass', fill.failToPass],
    ['pass_to_pass', fill.passToPass],
  ];
  const expected = expectedJs(doc, taskId, values);
  const spliced = splice(text, tests, values);
  if (spliced !== undefined && sameAs(spliced, expected)) return spliced;
  for (const [key, value] of values) tests.set(key, doc.createNode(value));
  return doc.toString({ lineWidth: 0 });
}

function testsMapOf(doc: Document, file: string, taskId: string): YAMLMap {
  const tasks = doc.get('tasks', true);
  const task = isSeq(tasks) ? tasks.items.find((t) => isMap(t) && t.get('id') === taskId) : undefined;
  if (!isMap(task)) throw new InputError(`${file}: no task ${taskId} written as a mapping under tasks: (fix: check --task)`);
  const tests = task.get('tests', true);
  if (!isMap(tests)) throw new InputError(`${file}: tasks[id=${taskId}].tests: not a mapping to write fail_to_pass into (fix: give the task a tests: block)`);
  return tests;
}

/** Splices each value over the old one, last in the file first so earlier offsets stay right. */
function splice(text: string, tests: YAMLMap, values: Array<[string, 'all_others' | readonly string[]]>): string | undefined {
  const edits: Array<{ from: number; to: number; text: string }> = [];
  for (const [key, value] of values) {
    const pair = tests.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Node, Node> | undefined;
    const keyRange = pair?.key.range;
    const valueRange = pair?.value?.range;
    if (!keyRange || !valueRange) return undefined;
    const lineStart = text.lastIndexOf('\n', keyRange[0] - 1) + 1;
    const column = keyRange[0] - lineStart;
    // From the key's end (its colon follows) to the value's end, its trailing comment kept.
    edits.push({ from: keyRange[1], to: valueRange[1], text: `:${render(value, column, isSeq(pair.value) && pair.value.flow === true)}` });
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.from - a.from)) {
    const end = out[edit.to - 1] === '\n' ? edit.to - 1 : edit.to;
    out = out.slice(0, edit.from) + edit.text + out.slice(end);
  }
  return out;
}

function render(value: 'all_others' | readonly string[], column: number, wasFlow: boolean): string {
  if (value === 'all_others') return ' all_others';
  if (value.length === 0) return ' []';
  if (value.length <= FLOW_MAX || wasFlow) return ` [${value.map((v) => JSON.stringify(v)).join(', ')}]`;
  const pad = ' '.repeat(column + 2);
  return value.map((v) => `\n${pad}- ${JSON.stringify(v)}`).join('');
}

function expectedJs(doc: Document, taskId: string, values: Array<[string, 'all_others' | readonly string[]]>): unknown {
  const js = doc.toJS() as { tasks: Array<Record<string, unknown>> };
  const tasks = js.tasks.map((t) =>
    t.id === taskId ? { ...t, tests: { ...(t.tests as Record<string, unknown>), ...Object.fromEntries(values.map(([k, v]) => [k, v])) } } : t,
  );
  return JSON.parse(JSON.stringify({ ...js, tasks })) as unknown;
}

function sameAs(text: string, expected: unknown): boolean {
  const doc = parseDocument(text);
  return doc.errors.length === 0 && isDeepStrictEqual(doc.toJS(), expected);
}
