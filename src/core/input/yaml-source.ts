import { LineCounter, parseDocument, isMap, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';
import { ConfigError } from '../errors.js';

/**
 * How many times aliases may be expanded, weighted by how many aliases each one holds (the `yaml`
 * package's measure). A task set that shares one anchor across thousands of tasks stays far below
 * it; an alias bomb ("billion laughs") multiplies past it within a few levels.
 */
export const MAX_ALIAS_EXPANSIONS = 10_000;

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
    try {
      return this.doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS });
    } catch (error) {
      // The yaml package throws a ReferenceError for both an alias bomb and an alias to nothing.
      if (!(error instanceof ReferenceError)) throw error;
      const bomb = /excessive alias count/i.test(error.message);
      throw new ConfigError(
        { file: this.file },
        bomb
          ? `YAML aliases expand to more than ${MAX_ALIAS_EXPANSIONS.toLocaleString('en-US')} copies (an alias bomb?)`
          : `invalid YAML alias: ${error.message}`,
        bomb ? 'share fewer anchors, or write the repeated parts out' : 'define the anchor (&name) before its alias (*name)',
      );
    }
  }

  /** Where the top-level value starts, for errors about the file as a whole. */
  rootPosition(): { line?: number; column?: number } {
    const range = this.doc.contents?.range;
    return range ? this.at(range[0]) : {};
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
