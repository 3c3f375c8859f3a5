import { LineCounter, parseDocument, isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';
import { ConfigError } from '../errors.js';

export type FieldPath = ReadonlyArray<string | number>;

/**
 * A parsed YAML file that remembers where every value came from, so that any later error (schema,
 * missing file, duplicate id) can point at a line.
 */
export class YamlSource {
  private constructor(
    readonly file: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  static parse(file: string, text: string): YamlSource {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const first = doc.errors[0];
    if (first) {
      const pos = first.linePos?.[0] ?? lines.linePos(first.pos[0]);
      const problem = first.message.split('\n')[0] ?? 'invalid YAML';
      throw new ConfigError({ file, line: pos?.line, column: pos?.col }, `invalid YAML: ${problem}`, 'fix the YAML syntax at that line');
    }
    return new YamlSource(file, doc, lines);
  }

  toJS(): unknown {
    return this.doc.toJS({ maxAliasCount: 100 });
  }

  /**
   * Line and column where the field at `path` is named (its key), or of `key` inside it. Falls back
   * to the nearest ancestor that exists, since a missing field has no position of its own.
   */
  position(path: FieldPath, key?: string): { line?: number; column?: number } {
    const full = key === undefined ? path : [...path, key];
    for (let depth = full.length; depth > 0; depth--) {
      const parent = this.doc.getIn(full.slice(0, depth - 1), true) as Node | undefined;
      const last = full[depth - 1];
      if (isMap(parent)) {
        const pair = parent.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === last);
        const keyNode = pair && isPair(pair) ? (pair.key as Node | null) : null;
        if (keyNode?.range) return this.at(keyNode.range[0]);
      } else if (isSeq(parent) && typeof last === 'number') {
        const item = parent.items[last] as Node | undefined;
        if (item?.range) return this.at(item.range[0]);
      }
    }
    return {};
  }

  has(path: FieldPath): boolean {
    return this.doc.hasIn(path);
  }

  private at(offset: number): { line: number; column: number } {
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }
}

/** `tasks[2].tests.fail_to_pass` */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  }
  return out;
}
