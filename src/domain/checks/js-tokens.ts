/**
 * A small JavaScript/TypeScript tokenizer: enough to tell code from comments and strings, to cook
 * string literals and escaped identifiers (`'\x61ssert'`, `\u0061ssert` are `assert`), and to
 * follow template literals. Not a parser: the write analysis (js-writes.ts) reads token sequences.
 * It never throws; what it cannot make sense of becomes a one-character punctuator.
 */
export interface JsToken {
  kind: 'name' | 'string' | 'template' | 'number' | 'punct' | 'regex';
  /** Names and strings cooked (escapes resolved); a template's value is its text when it has no substitution. */
  value: string;
  line: number;
  /** Offsets of the token's source text in the tokenized text: `text.slice(start, end)`. */
  start: number;
  end: number;
}

const PUNCTS = [
  '>>>=',
  '...',
  '===',
  '!==',
  '**=',
  '<<=',
  '>>=',
  '>>>',
  '&&=',
  '||=',
  '??=',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '**',
  '<<',
  '>>',
];

/** After these names an expression starts, so a `/` begins a regular expression. */
const EXPRESSION_KEYWORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

const ID_START = /[A-Za-z_$\u0080-\uffff]/;
const ID_PART = /[\w$\u0080-\uffff\u200c\u200d]/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;
const SPACES = /[ \t]+/y;
const PLAIN_NAME = /[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff\u200c\u200d]*/y;

export function tokenizeJs(text: string): JsToken[] {
  const tokens: JsToken[] = [];
  let i = 0;
  let start = 0;
  // Each pass of the loop below adds at most one token, spanning where the pass started to where it stopped.
  let spanned = 0;
  const span = (): void => {
    for (; spanned < tokens.length; spanned++) Object.assign(tokens[spanned] as JsToken, { start, end: i });
  };
  let line = 1;
  /** Brace depth at which each open template substitution resumes its template. */
  const templates: number[] = [];
  let depth = 0;
  const advanceLines = (from: number, to: number): void => {
    for (let k = from; k < to; k++) {
      const c = text.charAt(k);
      // Numbered as git numbers them (by \n), so a finding lands on the patch's line.
      if (c === '\n') line++;
    }
  };
  if (text.startsWith('#!')) while (i < text.length && !LINE_BREAK.test(text.charAt(i))) i++;
  while (i < text.length) {
    span();
    const c = text.charAt(i);
    start = i;
    if (c === ' ' || c === '\t') {
      SPACES.lastIndex = i;
      SPACES.exec(text);
      i = SPACES.lastIndex;
      continue;
    }
    if (LINE_BREAK.test(c) || /\s/.test(c)) {
      advanceLines(i, i + 1);
      i++;
      continue;
    }
    if (c === '/' && text.charAt(i + 1) === '/') {
      while (i < text.length && !LINE_BREAK.test(text.charAt(i))) i++;
      continue;
    }
    if (c === '/' && text.charAt(i + 1) === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
      advanceLines(start, i);
      continue;
    }
    if (c === '<' && text.startsWith('<!--', i)) {
      while (i < text.length && !LINE_BREAK.test(text.charAt(i))) i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const { value, end } = readString(text, i + 1, c);
      tokens.push({ kind: 'string', value, line, start, end: start });
      i = end;
      advanceLines(start, i);
      continue;
    }
    if (c === '`' || (c === '}' && templates.length > 0 && templates[templates.length - 1] === depth)) {
      if (c === '}') templates.pop();
      const { value, end, substitution } = readTemplate(text, i + 1);
      if (c === '`') tokens.push({ kind: 'template', value: substitution ? '' : value, line, start, end: start });
      if (substitution) templates.push(depth);
      i = end;
      advanceLines(start, i);
      continue;
    }
    if (ID_START.test(c)) {
      // The common case in one step: a name without escapes.
      PLAIN_NAME.lastIndex = i;
      const plain = PLAIN_NAME.exec(text);
      if (plain && text.charAt(PLAIN_NAME.lastIndex) !== '\\') {
        tokens.push({ kind: 'name', value: plain[0], line, start, end: start });
        i = PLAIN_NAME.lastIndex;
        continue;
      }
    }
    if (ID_START.test(c) || c === '\\' || c === '#') {
      const { value, end } = readName(text, c === '#' ? i + 1 : i);
      if (end === i || (c === '#' && end === i + 1)) {
        tokens.push({ kind: 'punct', value: c, line, start, end: start });
        i++;
        continue;
      }
      tokens.push({ kind: 'name', value: c === '#' ? `#${value}` : value, line, start, end: start });
      i = end;
      continue;
    }
    if (/\d/.test(c) || (c === '.' && /\d/.test(text.charAt(i + 1)))) {
      while (i < text.length && /[\w.]/.test(text.charAt(i))) i++;
      tokens.push({ kind: 'number', value: text.slice(start, i), line, start, end: start });
      continue;
    }
    if (c === '/' && regexAllowed(tokens[tokens.length - 1])) {
      i = readRegex(text, i + 1);
      tokens.push({ kind: 'regex', value: text.slice(start, i), line, start, end: start });
      continue;
    }
    const punct = PUNCTS.find((p) => text.startsWith(p, i)) ?? c;
    if (punct === '{') depth++;
    if (punct === '}') depth--;
    tokens.push({ kind: 'punct', value: punct, line, start, end: start });
    i += punct.length;
  }
  span();
  return tokens;
}

function regexAllowed(prev: JsToken | undefined): boolean {
  if (!prev) return true;
  if (prev.kind === 'name') return EXPRESSION_KEYWORDS.has(prev.value);
  if (prev.kind === 'punct') return ![')', ']', '}'].includes(prev.value);
  return false;
}

function readRegex(text: string, from: number): number {
  let i = from;
  let inClass = false;
  while (i < text.length && !LINE_BREAK.test(text.charAt(i))) {
    const c = text.charAt(i);
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      i++;
      while (i < text.length && ID_PART.test(text.charAt(i))) i++;
      return i;
    }
    i++;
  }
  return i;
}

function readName(text: string, from: number): { value: string; end: number } {
  let i = from;
  let value = '';
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === '\\' && text.charAt(i + 1) === 'u') {
      const escape = unicodeEscape(text, i + 2);
      if (!escape) break;
      value += escape.char;
      i = escape.end;
    } else if (i === from ? ID_START.test(c) : ID_PART.test(c)) {
      value += c;
      i++;
    } else break;
  }
  return { value, end: i };
}

function unicodeEscape(text: string, at: number): { char: string; end: number } | undefined {
  if (text.charAt(at) === '{') {
    const close = text.indexOf('}', at);
    const hex = close === -1 ? '' : text.slice(at + 1, close);
    if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || Number.parseInt(hex, 16) > 0x10ffff) return undefined;
    return { char: String.fromCodePoint(Number.parseInt(hex, 16)), end: close + 1 };
  }
  const hex = text.slice(at, at + 4);
  if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
  return { char: String.fromCharCode(Number.parseInt(hex, 16)), end: at + 4 };
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** Reads a string body after its opening quote; returns the cooked value and the index after the closing quote. */
function readString(text: string, from: number, quote: string): { value: string; end: number } {
  let i = from;
  let value = '';
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === quote) return { value, end: i + 1 };
    if (c === '\n' || c === '\r') return { value, end: i };
    if (c === '\\') {
      const { char, end } = cookEscape(text, i + 1);
      value += char;
      i = end;
      continue;
    }
    value += c;
    i++;
  }
  return { value, end: i };
}

function cookEscape(text: string, at: number): { char: string; end: number } {
  const e = text.charAt(at);
  if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(at + 1, at + 3)))
    return { char: String.fromCharCode(Number.parseInt(text.slice(at + 1, at + 3), 16)), end: at + 3 };
  if (e === 'u') {
    const escape = unicodeEscape(text, at + 1);
    if (escape) return escape;
  }
  if (e === '\r') return { char: '', end: text.charAt(at + 1) === '\n' ? at + 2 : at + 1 };
  if (LINE_BREAK.test(e)) return { char: '', end: at + 1 };
  return { char: SIMPLE_ESCAPES[e] ?? e, end: at + 1 };
}

/** Reads a template chunk up to its closing backtick or a `${`. */
function readTemplate(text: string, from: number): { value: string; end: number; substitution: boolean } {
  let i = from;
  let value = '';
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === '`') return { value, end: i + 1, substitution: false };
    if (c === '$' && text.charAt(i + 1) === '{') return { value, end: i + 2, substitution: true };
    if (c === '\\') {
      const { char, end } = cookEscape(text, i + 1);
      value += char;
      i = end;
      continue;
    }
    value += c;
    i++;
  }
  return { value, end: i, substitution: false };
}
