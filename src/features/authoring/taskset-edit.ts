/**
 * Adds a task to a task-set file's text without rewriting the rest of it. The new task is rendered
 * by the `yaml` package and spliced in as text after the last task (or over the task it replaces),
 * so every other byte of the file — comments, quoting, blank lines, flow maps — stays as the
 * author wrote it. The result is parsed back and compared with what was meant; when the splice
 * cannot be proved right (a flow-style `tasks: [...]`, an odd layout), the document is edited
 * through the `yaml` Document API instead, which keeps comments but may re-lay-out the file.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, isPair, isScalar, isSeq, parseDocument, type Node, type YAMLMap, type YAMLSeq } from 'yaml';

/** A task as the file writes it (snake_case fields), in the order they should appear. */
export type TaskYaml = Record<string, unknown>;

export interface RenderOptions {
  /** A comment line above the task (its provenance). */
  comment?: string;
  /** Comment lines above some of its fields, by field name. */
  fieldComments?: Record<string, string>;
  /** Fields rendered in flow style (`repo: { path: … }`). */
  flow?: readonly string[];
}

export interface EditResult {
  text: string;
  /** `splice` when only the task's own lines changed; `document` when the file was re-laid out. */
  how: 'splice' | 'document';
}

/** The task as a block-sequence item, its dash at column `indent`. */
export function renderTask(task: TaskYaml, indent: number, options: RenderOptions = {}): string {
  const doc = new Document([task]);
  const item = (doc.contents as YAMLSeq).items[0] as YAMLMap;
  decorate(item, options);
  const text = doc.toString({ lineWidth: 0 });
  const pad = ' '.repeat(indent);
  return text
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

function decorate(item: YAMLMap, options: RenderOptions): void {
  if (options.comment !== undefined) item.commentBefore = ` ${options.comment}`;
  for (const pair of item.items) {
    if (!isPair(pair) || !isScalar(pair.key)) continue;
    const name = String(pair.key.value);
    const note = options.fieldComments?.[name];
    if (note !== undefined) pair.key.commentBefore = ` ${note}`;
    if (options.flow?.includes(name) && isMap(pair.value)) pair.value.flow = true;
  }
}

/**
 * `text` with `task` appended to its `tasks:` list, or put in place of the task at `replace`.
 * `text` undefined starts a new file.
 */
export function addTask(text: string | undefined, task: TaskYaml, options: RenderOptions & { replace?: number } = {}): EditResult {
  if (text === undefined || text.trim() === '') return { text: `tasks:\n${renderTask(task, 2, options)}`, how: 'splice' };
  const doc = parseDocument(text);
  const expected = expectedJs(doc, task, options.replace);
  const spliced = splice(text, doc, task, options);
  if (spliced !== undefined && sameAs(spliced, expected)) return { text: spliced, how: 'splice' };
  return { text: viaDocument(doc, task, options), how: 'document' };
}

function splice(text: string, doc: Document, task: TaskYaml, options: RenderOptions & { replace?: number }): string | undefined {
  const seq = doc.get('tasks', true) as Node | undefined;
  if (!isSeq(seq) || seq.flow || seq.items.length === 0) return undefined;
  const items = seq.items as Node[];
  const first = items[0]?.range;
  if (!first) return undefined;
  const dash = dashColumn(text, first[0]);
  if (dash === undefined) return undefined;
  if (options.replace !== undefined) {
    const range = items[options.replace]?.range;
    if (!range) return undefined;
    const start = text.lastIndexOf('\n', range[0] - 1) + 1;
    const end = lineEnd(text, range[2]);
    return text.slice(0, start) + renderTask(task, dash, options) + text.slice(end);
  }
  const last = items[items.length - 1]?.range;
  if (!last) return undefined;
  const at = lineEnd(text, last[2]);
  const head = text.slice(0, at);
  // A blank line before the new task when the file separates its tasks with one.
  const gap = items.slice(1).some((i) => i.spaceBefore === true) ? '\n' : '';
  return `${head}${head.endsWith('\n') ? '' : '\n'}${gap}${renderTask(task, dash, options)}${text.slice(at)}`;
}

/** Column of the `-` that starts the item whose content begins at `offset`, when it is `<spaces>- `. */
function dashColumn(text: string, offset: number): number | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  const match = /^( *)- +$/.exec(prefix);
  return match ? (match[1] ?? '').length : undefined;
}

/** The offset just past the line that `offset` ends in (or the text's end). */
function lineEnd(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

function expectedJs(doc: Document, task: TaskYaml, replace: number | undefined): unknown {
  const js = doc.toJS() as Record<string, unknown>;
  const tasks = Array.isArray(js.tasks) ? [...(js.tasks as unknown[])] : [];
  if (replace === undefined) tasks.push(task);
  else tasks[replace] = task;
  return { ...js, tasks };
}

function sameAs(text: string, expected: unknown): boolean {
  const doc = parseDocument(text);
  return doc.errors.length === 0 && isDeepStrictEqual(doc.toJS(), JSON.parse(JSON.stringify(expected)));
}

function viaDocument(doc: Document, task: TaskYaml, options: RenderOptions & { replace?: number }): string {
  const node = doc.createNode(task) as YAMLMap;
  decorate(node, options);
  const seq = doc.get('tasks', true);
  if (isSeq(seq)) {
    if (options.replace !== undefined) seq.items[options.replace] = node;
    else seq.items.push(node);
  } else doc.set('tasks', doc.createNode([node]));
  return doc.toString({ lineWidth: 0 });
}
