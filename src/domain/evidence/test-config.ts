/**
 * Files outside the test directories that still decide which tests run and how, at any depth. The
 * verification copy takes every one of them from the baseline. A change to one counts as tampering
 * only when it touches the part that configures tests: a new dependency in package.json is fine, a
 * new `scripts.test` is not.
 *
 * Deliberately not here (docs/grading.md, "What is and is not defended"): `tsconfig*.json` (too
 * common a fix target; a test runner reads it for paths and syntax, not for outcomes), `.env`
 * (vitest, jest and pytest do not read it by default), `*.pth` outside a site directory (Python
 * only processes them in site-packages, which DEPENDENCY_PATHS covers; elsewhere the name is a
 * PyTorch checkpoint), and scripts a test command names (`make test`, `./run-tests.sh`).
 */
import { basename } from 'node:path';

/** Globs of files whose every change alters what runs. */
export const WHOLE_FILE_TEST_CONFIG = [
  // pytest and the Python interpreter
  '**/conftest.py',
  '**/pytest.ini',
  '**/.pytest.ini',
  '**/pytest.toml',
  '**/.pytest.toml',
  // Imported at interpreter start when on sys.path (PYTHONPATH=src …): can patch anything.
  '**/sitecustomize.py',
  '**/usercustomize.py',
  // vitest, jest, mocha, ava, tap, karma, playwright, cypress, node's own test runner
  '**/vitest.config.*',
  '**/vitest.workspace.*',
  '**/vitest.projects.*',
  '**/vitest.setup.*',
  '**/jest.config.*',
  '**/jest.setup.*',
  '**/jest-preset.*',
  '**/.mocharc*',
  '**/ava.config.*',
  '**/.taprc',
  '**/karma.conf.*',
  '**/playwright.config.*',
  '**/cypress.config.*',
  '**/node.config.json',
  // coverage wrappers run the tests themselves
  '**/.c8rc*',
  '**/.nycrc*',
  // transforms applied to test files can rewrite their assertions
  '**/.babelrc*',
  '**/babel.config.*',
  '**/.swcrc',
  // `node-options=--require ./x.js` preloads code into every node process npm starts
  '**/.npmrc',
  // `yarnPath`, plugins and node options for every `yarn test`
  '**/.yarnrc',
  '**/.yarnrc.yml',
  // cargo: `[patch]` of a test dependency, `runner` and `rustflags` for every `cargo test`
  '**/.cargo/config.toml',
  '**/.cargo/config',
];

/** Globs of files where only some sections configure tests; see testSection(). */
export const SECTIONED_TEST_CONFIG = ['**/package.json', '**/pyproject.toml', '**/setup.cfg', '**/tox.ini', '**/vite.config.*', '**/Cargo.toml', '**/go.mod'];

/**
 * Globs of installed dependencies and interpreter hooks. The verification copy always takes them
 * from the baseline; they are neither graded nor, by themselves, tampering. Virtualenvs named
 * `venv` are matched by their layout, not the bare name: `src/hatch/venv/` is source code.
 */
export const DEPENDENCY_PATHS = [
  '**/node_modules/**',
  '**/.yarn/**',
  '**/.pnp.cjs',
  '**/.pnp.loader.mjs',
  '**/site-packages/**',
  '**/dist-packages/**',
  '**/.venv/**',
  '**/venv/{bin,lib,lib64,include,Lib,Scripts}/**',
  '**/venv/pyvenv.cfg',
  '**/*.dist-info/**',
  '**/*.egg-info/**',
  '**/*.egg-link',
  '**/.eggs/**',
  '**/__pypackages__/**',
];

/**
 * Top-level package.json keys that configure a test runner, a coverage wrapper or a transform, and
 * `imports`: the `#helpers`-style specifiers baseline test files import resolve through it, so a
 * change there could point a test's helper (or its assertion wrapper) at a module of the change.
 */
const PACKAGE_KEYS = ['jest', 'mocha', 'ava', 'vitest', 'c8', 'nyc', 'tap', 'babel', 'imports'];
/** `test`, `pretest`, `posttest` and their `test:unit`-style sub-scripts, which `test` usually calls. */
const PACKAGE_SCRIPT = /^(?:pre|post)?test(?::|$)/;

/** pyproject.toml key paths that configure pytest or load a pytest plugin. */
const PYPROJECT_PATHS = [
  ['tool', 'pytest'],
  ['project', 'entry-points', 'pytest11'],
  ['tool', 'poetry', 'plugins', 'pytest11'],
];

/**
 * The test-relevant part of a sectioned config file as comparable text, or undefined when the file
 * has none. A file that cannot be read as its format is returned whole: whatever changed in it
 * may have changed how tests run.
 */
export function testSection(path: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const name = basename(path);
  if (name === 'package.json') {
    try {
      const json = JSON.parse(text) as unknown;
      if (typeof json !== 'object' || json === null || Array.isArray(json)) return text;
      const record = json as Record<string, unknown>;
      const scripts = (typeof record.scripts === 'object' && record.scripts !== null ? record.scripts : {}) as Record<string, unknown>;
      const picked: Record<string, unknown> = {};
      for (const key of Object.keys(scripts).sort()) if (PACKAGE_SCRIPT.test(key)) picked[`scripts.${key}`] = scripts[key];
      for (const key of PACKAGE_KEYS) if (record[key] !== undefined) picked[key] = record[key];
      return Object.keys(picked).length > 0 ? JSON.stringify(picked) : undefined;
    } catch {
      return text;
    }
  }
  if (name === 'pyproject.toml') {
    try {
      return tomlSection(text, (keys) => PYPROJECT_PATHS.some((wanted) => startsWith(keys, wanted)));
    } catch {
      return text;
    }
  }
  if (name === 'setup.cfg') {
    return iniSection(text, (section, key) => section === 'tool:pytest' || section === 'pytest' || (section === 'options.entry_points' && key === 'pytest11'));
  }
  if (name === 'tox.ini') return iniSection(text, (section) => section === 'pytest');
  // A `[patch]` or `[replace]` could put a module of the change in place of a test dependency.
  if (name === 'Cargo.toml') {
    try {
      return tomlSection(text, (keys) => keys[0] === 'patch' || keys[0] === 'replace');
    } catch {
      return text;
    }
  }
  // Likewise a `replace` directive (testify → ./fake-testify).
  if (name === 'go.mod') return goReplaces(text);
  // vite.config.* configures vitest only when it has a `test` block; then all of it counts.
  if (name.startsWith('vite.config.')) return /\btest\s*:/.test(text) ? text : undefined;
  return text;
}

/** go.mod's `replace` directives, one a line, whitespace-normalised; undefined when there are none. */
function goReplaces(text: string): string | undefined {
  const picked: string[] = [];
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw
      .replace(/\/\/.*$/, '')
      .trim()
      .replace(/\s+/g, ' ');
    if (inBlock) {
      if (line === ')') inBlock = false;
      else if (line !== '') picked.push(`replace ${line}`);
    } else if (/^replace\s*\($/.test(line)) inBlock = true;
    else if (line.startsWith('replace ')) picked.push(line);
  }
  return picked.length > 0 ? picked.join('\n') : undefined;
}

function startsWith(keys: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= keys.length && prefix.every((k, i) => keys[i] === k);
}

/**
 * INI (configparser) sections and keys that `wanted` picks, as `[section]` and `key = value`
 * lines, whitespace-normalised. `wanted(section)` with no key asks for the whole section; keys are
 * compared lower-cased, as configparser does. Indented lines continue the key above them.
 */
function iniSection(text: string, wanted: (section: string, key?: string) => boolean): string | undefined {
  const picked: string[] = [];
  let section: string | undefined;
  let wholeSection = false;
  let keepKey = false;
  let inKey = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (inKey && /^\s/.test(raw)) {
      if (wholeSection || keepKey) picked.push(`  ${line}`);
      continue;
    }
    const header = /^\[\s*([^\]]+?)\s*\]\s*(?:[#;].*)?$/.exec(line);
    if (header) {
      section = header[1] ?? '';
      wholeSection = wanted(section);
      keepKey = false;
      inKey = false;
      if (wholeSection) picked.push(`[${section}]`);
      continue;
    }
    const key = /^([^=:]+?)\s*[=:]/.exec(line)?.[1]?.toLowerCase();
    inKey = true;
    keepKey = section !== undefined && key !== undefined && !wholeSection && wanted(section, key);
    if (keepKey) picked.push(`[${section}] ${line}`);
    else if (wholeSection) picked.push(line);
  }
  return picked.length > 0 ? picked.join('\n') : undefined;
}

/**
 * A small TOML reader that knows only where each value sits: table headers, dotted keys, inline
 * tables, and values that run over several lines (arrays, multi-line strings). It returns one line
 * per value whose key path `wanted` picks (`tool.pytest.ini_options.addopts = "-x"`), plus the
 * headers of wanted tables (an empty `[tool.pytest.ini_options]` alone makes pytest take the file
 * as its configuration). Values are kept as written, minus comments and whitespace outside
 * strings. Throws on what it cannot read; the caller then takes the whole file.
 */
export function tomlSection(text: string, wanted: (keys: string[]) => boolean): string | undefined {
  const reader = new TomlReader(text.replace(/^\uFEFF/, ''));
  const picked: string[] = [];
  let table: string[] = [];
  for (;;) {
    reader.skipBlank();
    if (reader.done()) break;
    if (reader.peek() === '[') {
      const array = reader.peek(1) === '[';
      reader.advance(array ? 2 : 1);
      table = reader.keyPath();
      reader.expect(array ? ']]' : ']');
      reader.endOfLine();
      if (wanted(table)) picked.push(array ? `[[${dotted(table)}]]` : `[${dotted(table)}]`);
      continue;
    }
    const keys = [...table, ...reader.keyPath()];
    reader.expect('=');
    collect(reader, keys, wanted, picked);
    reader.endOfLine();
  }
  return picked.length > 0 ? picked.join('\n') : undefined;
}

/** Reads one value at `keys`; an inline table is walked key by key, anything else kept whole. */
function collect(reader: TomlReader, keys: string[], wanted: (keys: string[]) => boolean, picked: string[]): void {
  reader.skipSpace(true);
  if (reader.peek() !== '{') {
    const value = reader.value();
    if (wanted(keys)) picked.push(`${dotted(keys)} = ${value}`);
    return;
  }
  reader.advance(1);
  if (wanted(keys)) picked.push(`${dotted(keys)} = {}`);
  for (;;) {
    reader.skipSpace(true);
    if (reader.peek() === '}') {
      reader.advance(1);
      return;
    }
    const inner = [...keys, ...reader.keyPath()];
    reader.expect('=');
    collect(reader, inner, wanted, picked);
    reader.skipSpace(true);
    if (reader.peek() === ',') reader.advance(1);
    else if (reader.peek() !== '}') reader.fail('expected , or } in an inline table');
  }
}

function dotted(keys: readonly string[]): string {
  return keys.map((k) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k))).join('.');
}

class TomlReader {
  private pos = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text.charAt(this.pos + offset);
  }

  advance(n: number): void {
    this.pos += n;
  }

  fail(problem: string): never {
    throw new Error(`TOML at offset ${this.pos}: ${problem}`);
  }

  expect(token: string): void {
    this.skipSpace(false);
    if (!this.text.startsWith(token, this.pos)) this.fail(`expected ${token}`);
    this.pos += token.length;
  }

  /** Spaces and tabs; with `newlines`, also line breaks and comments (inside arrays and inline tables). */
  skipSpace(newlines: boolean): void {
    while (!this.done()) {
      const c = this.peek();
      if (c === ' ' || c === '\t') this.pos++;
      else if (newlines && (c === '\n' || c === '\r')) this.pos++;
      else if (newlines && c === '#') this.skipComment();
      else break;
    }
  }

  /** Blank lines and comment lines between statements. */
  skipBlank(): void {
    this.skipSpace(true);
  }

  /** After a statement: optional comment, then a line break or the end. */
  endOfLine(): void {
    this.skipSpace(false);
    if (this.peek() === '#') this.skipComment();
    if (this.done()) return;
    if (this.peek() === '\r') this.pos++;
    if (this.peek() !== '\n') this.fail('expected the end of the line');
    this.pos++;
  }

  private skipComment(): void {
    while (!this.done() && this.peek() !== '\n') this.pos++;
  }

  /** `a.b."c.d".'e'` → ['a', 'b', 'c.d', 'e']. */
  keyPath(): string[] {
    const keys: string[] = [];
    for (;;) {
      this.skipSpace(false);
      const c = this.peek();
      if (c === '"' || c === "'") keys.push(JSON.parse(this.quotedString(c)) as string);
      else {
        const bare = /^[A-Za-z0-9_-]+/.exec(this.text.slice(this.pos, this.pos + 256))?.[0];
        if (bare === undefined) this.fail('expected a key');
        keys.push(bare);
        this.pos += bare.length;
      }
      this.skipSpace(false);
      if (this.peek() !== '.') return keys;
      this.pos++;
    }
  }

  /**
   * A value other than an inline table at the top, as normalised text: strings verbatim (as JSON
   * for single-line literal strings), arrays and nested inline tables without comments or
   * whitespace, scalars trimmed.
   */
  value(): string {
    this.skipSpace(false);
    const c = this.peek();
    if (c === '"' || c === "'") return this.quotedString(c);
    if (c === '[' || c === '{') return this.bracketed();
    const scalar = /^[^\n\r#,\]}]+/.exec(this.text.slice(this.pos))?.[0]?.trimEnd();
    if (!scalar) this.fail('expected a value');
    this.pos += scalar.length;
    return scalar;
  }

  private bracketed(): string {
    const close = this.peek() === '[' ? ']' : '}';
    let out = this.peek();
    this.pos++;
    for (;;) {
      this.skipSpace(true);
      if (this.done()) this.fail(`unterminated ${out.charAt(0)}`);
      const c = this.peek();
      if (c === close) {
        this.pos++;
        return `${out}${close}`;
      }
      if (c === ',' || c === '=' || c === '.') {
        out += c;
        this.pos++;
      } else if (c === '"' || c === "'" || c === '[' || c === '{') {
        out += this.value();
      } else {
        const token = /^[^\s#,=\]}[{"'.]+/.exec(this.text.slice(this.pos))?.[0];
        if (!token) this.fail(`unexpected ${c}`);
        out += token;
        this.pos += token.length;
      }
    }
  }

  /** A string of any of TOML's four kinds, returned as a JSON string literal of its raw content. */
  private quotedString(quote: string): string {
    const triple = quote.repeat(3);
    if (this.text.startsWith(triple, this.pos)) {
      const start = this.pos + 3;
      let end = this.text.indexOf(triple, start);
      while (end !== -1 && quote === '"' && isEscaped(this.text, end)) end = this.text.indexOf(triple, end + 1);
      if (end === -1) this.fail('unterminated multi-line string');
      // Up to two more quotes may close the content itself (`""""a"""""`).
      while (this.text.charAt(end + 3) === quote) end++;
      this.pos = end + 3;
      return JSON.stringify(this.text.slice(start, end));
    }
    const start = this.pos + 1;
    let i = start;
    for (; i < this.text.length; i++) {
      const c = this.text.charAt(i);
      if (c === '\n') break;
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) break;
    }
    if (this.text.charAt(i) !== quote) this.fail('unterminated string');
    this.pos = i + 1;
    const raw = this.text.slice(start, i);
    return JSON.stringify(quote === '"' ? unescapeBasic(raw) : raw);
  }
}

function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charAt(i) === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** Enough of TOML's basic-string escapes to compare `"a\"b"` with `'a"b'` and use quoted keys. */
function unescapeBasic(raw: string): string {
  return raw.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, e: string) => {
    if (e.length > 1) return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
    return { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' }[e] ?? e;
  });
}

/** A JUnit report's opening, after an optional XML declaration and comments. */
const JUNIT_HEAD = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<testsuites?[\s>/]/;

export function looksLikeJUnit(head: string): boolean {
  return JUNIT_HEAD.test(head);
}
