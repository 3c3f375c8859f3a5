/**
 * A small, strict TOML parser for what Harbor's task.toml uses: comments, `[table]` headers
 * (dotted), `key = value` with bare, quoted and dotted keys, basic and literal strings (single and
 * multi-line), integers, floats, booleans, arrays and inline tables. No TOML package is installed;
 * what it does not know (dates, `[[arrays of tables]]`, hex/octal/binary integers, inf/nan) is an
 * error rather than a guess, as is a key set twice. Errors say the line.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export class TomlError extends Error {
  override readonly name = 'TomlError';
}

export function parseToml(text: string): TomlTable {
  return new Parser(text.replace(/^\uFEFF/, '')).document();
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' };

class Parser {
  private pos = 0;
  /** Tables defined by a header or by a value: a second definition is an error. */
  private readonly defined = new Set<TomlTable>();

  constructor(private readonly text: string) {}

  document(): TomlTable {
    const root: TomlTable = {};
    let table = root;
    for (;;) {
      this.skipBlankLines();
      if (this.pos >= this.text.length) return root;
      if (this.peek() === '[') {
        if (this.text[this.pos + 1] === '[') this.fail('arrays of tables ([[…]]) are not supported');
        this.pos++;
        this.skipSpaces();
        const keys = this.keyPath();
        this.expect(']');
        table = this.openTable(root, keys, true);
        this.endOfLine();
        continue;
      }
      this.keyValue(table);
      this.endOfLine();
    }
  }

  private keyValue(table: TomlTable): void {
    const keys = this.keyPath();
    this.expect('=');
    this.skipSpaces();
    const value = this.value();
    const parent = this.openTable(table, keys.slice(0, -1), false);
    const last = keys[keys.length - 1] as string;
    if (Object.prototype.hasOwnProperty.call(parent, last)) this.fail(`key ${JSON.stringify(keys.join('.'))} is set twice`);
    if (isTable(value)) this.defined.add(value);
    parent[last] = value;
  }

  /** Walks (creating) the tables at `keys` under `from`; `header`: the last one is defined by a `[header]`. */
  private openTable(from: TomlTable, keys: string[], header: boolean): TomlTable {
    let table = from;
    keys.forEach((key, index) => {
      const existing = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
      if (existing === undefined) {
        const created: TomlTable = {};
        table[key] = created;
        table = created;
      } else if (isTable(existing)) {
        table = existing;
      } else {
        this.fail(`key ${JSON.stringify(keys.slice(0, index + 1).join('.'))} is not a table`);
      }
      if (header && index === keys.length - 1) {
        if (this.defined.has(table)) this.fail(`table [${keys.join('.')}] is defined twice`);
        this.defined.add(table);
      }
    });
    return table;
  }

  private keyPath(): string[] {
    const keys = [this.key()];
    this.skipSpaces();
    while (this.peek() === '.') {
      this.pos++;
      this.skipSpaces();
      keys.push(this.key());
      this.skipSpaces();
    }
    return keys;
  }

  private key(): string {
    const c = this.peek();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    const start = this.pos;
    while (this.pos < this.text.length && BARE_KEY.test(this.text[this.pos] as string)) this.pos++;
    if (start === this.pos) this.fail('expected a key');
    return this.text.slice(start, this.pos);
  }

  private value(): TomlValue {
    const c = this.peek();
    if (this.text.startsWith('"""', this.pos)) return this.multiLineBasic();
    if (this.text.startsWith("'''", this.pos)) return this.multiLineLiteral();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    const token = /^[^\s,\]}#]+/.exec(this.text.slice(this.pos))?.[0] ?? '';
    if (token === '') this.fail('expected a value');
    this.pos += token.length;
    if (token === 'true') return true;
    if (token === 'false') return false;
    if (/^[+-]?(?:0|[1-9](?:_?\d)*)$/.test(token)) return Number(token.replace(/_/g, ''));
    if (/^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?$/.test(token)) return Number(token.replace(/_/g, ''));
    return this.fail(`unsupported value ${JSON.stringify(token.slice(0, 40))}`);
  }

  private array(): TomlValue[] {
    this.pos++;
    const items: TomlValue[] = [];
    for (;;) {
      this.skipWhitespaceAndComments();
      if (this.peek() === ']') {
        this.pos++;
        return items;
      }
      items.push(this.value());
      this.skipWhitespaceAndComments();
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== ']') this.fail('expected , or ] in an array');
    }
  }

  private inlineTable(): TomlTable {
    this.pos++;
    const table: TomlTable = {};
    this.skipSpaces();
    if (this.peek() === '}') {
      this.pos++;
      return table;
    }
    for (;;) {
      this.skipSpaces();
      this.keyValue(table);
      this.skipSpaces();
      const c = this.peek();
      this.pos++;
      if (c === '}') return table;
      if (c !== ',') this.fail('expected , or } in an inline table');
    }
  }

  private basicString(): string {
    this.pos++;
    let out = '';
    for (;;) {
      const c = this.text[this.pos++];
      if (c === undefined || c === '\n') this.fail('unterminated string');
      if (c === '"') return out;
      out += c === '\\' ? this.escape() : c;
    }
  }

  private literalString(): string {
    this.pos++;
    const end = this.text.indexOf("'", this.pos);
    const newline = this.text.indexOf('\n', this.pos);
    if (end === -1 || (newline !== -1 && newline < end)) this.fail('unterminated string');
    const value = this.text.slice(this.pos, end);
    this.pos = end + 1;
    return value;
  }

  private multiLineBasic(): string {
    this.pos += 3;
    if (this.text[this.pos] === '\n') this.pos++;
    else if (this.text.startsWith('\r\n', this.pos)) this.pos += 2;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated multi-line string');
      if (this.text.startsWith('"""', this.pos)) {
        this.pos += 3;
        return out;
      }
      const c = this.text[this.pos++] as string;
      if (c !== '\\') {
        out += c;
        continue;
      }
      // A backslash at the end of a line trims the line break and the whitespace after it.
      if (/^[ \t]*\r?\n/.test(this.text.slice(this.pos))) {
        while (/\s/.test(this.text[this.pos] ?? '')) this.pos++;
        continue;
      }
      out += this.escape();
    }
  }

  private multiLineLiteral(): string {
    this.pos += 3;
    if (this.text[this.pos] === '\n') this.pos++;
    else if (this.text.startsWith('\r\n', this.pos)) this.pos += 2;
    const end = this.text.indexOf("'''", this.pos);
    if (end === -1) this.fail('unterminated multi-line string');
    const value = this.text.slice(this.pos, end);
    this.pos = end + 3;
    return value;
  }

  private escape(): string {
    const c = this.text[this.pos++] ?? '';
    if (c in ESCAPES) return ESCAPES[c] as string;
    if (c === 'u' || c === 'U') {
      const length = c === 'u' ? 4 : 8;
      const hex = this.text.slice(this.pos, this.pos + length);
      if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(hex)) this.fail('bad unicode escape');
      this.pos += length;
      const code = parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail('bad unicode escape');
      return String.fromCodePoint(code);
    }
    return this.fail(`bad escape \\${c}`);
  }

  private skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  private skipWhitespaceAndComments(): void {
    for (;;) {
      while (/\s/.test(this.peek())) this.pos++;
      if (this.peek() !== '#') return;
      while (this.pos < this.text.length && this.peek() !== '\n') this.pos++;
    }
  }

  private skipBlankLines(): void {
    this.skipWhitespaceAndComments();
  }

  /** After a value or header: spaces, an optional comment, then a line break or the end. */
  private endOfLine(): void {
    this.skipSpaces();
    if (this.peek() === '#') while (this.pos < this.text.length && this.peek() !== '\n') this.pos++;
    if (this.pos >= this.text.length) return;
    if (this.peek() === '\r') this.pos++;
    if (this.peek() !== '\n') this.fail('expected the end of the line');
    this.pos++;
  }

  private expect(token: string): void {
    this.skipSpaces();
    if (!this.text.startsWith(token, this.pos)) this.fail(`expected ${token}`);
    this.pos += token.length;
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private fail(message: string): never {
    const line = this.text.slice(0, this.pos).split('\n').length;
    throw new TomlError(`line ${line}: ${message}`);
  }
}

function isTable(value: TomlValue | undefined): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
