/**
 * A changed file read the way its interpreter reads it, not the way git shows it. git calls a file
 * with one NUL byte binary and leaves it out of the patch; Python honours a PEP 263 coding line and
 * a BOM, so `# coding: utf-7` makes `+AD0-` an `=`. A scan that read git's lines would see harmless
 * text where Python sees code. What cannot be read faithfully is reported as a problem, which the
 * runner-internals check treats as a finding in itself (a cheat's reason to write it, and no honest one).
 */

export type SourceLanguage = 'python' | 'javascript' | 'utf8';

export interface SourceProblem {
  kind: 'nul-byte' | 'source-encoding';
  line: number;
  detail: string;
}

export interface SourceText {
  /** The decoded text, BOM removed. */
  text: string;
  /** The encoding it was read in (`utf-8`, `utf-16-le`, `latin-1`, …). */
  encoding: string;
  problems: SourceProblem[];
}

const PYTHON = /\.(?:py|pyw|pyi)$/i;
const JAVASCRIPT = /\.(?:[cm]?[jt]sx?|vue|svelte)$/i;
/** Other languages whose toolchains read source as UTF-8: scanned whatever git thinks of their bytes. */
const UTF8_SOURCE =
  /\.(?:rb|go|rs|java|kt|kts|scala|groovy|c|h|cc|cpp|cxx|hpp|hh|cs|fs|php|pl|pm|sh|bash|zsh|lua|swift|ex|exs|erl|hrl|hs|ml|mli|r|jl|dart|clj|cljs|nim|zig|m|mm|ps1|tcl|coffee|elm)$/i;

export function sourceLanguage(path: string): SourceLanguage | undefined {
  if (PYTHON.test(path)) return 'python';
  if (JAVASCRIPT.test(path)) return 'javascript';
  if (UTF8_SOURCE.test(path)) return 'utf8';
  return undefined;
}

const BOM_UTF8 = [0xef, 0xbb, 0xbf];

/** Python's codec names (normalised: lower case, `_` → `-`) that a WHATWG TextDecoder reads alike. */
const PY_CODECS: Record<string, string> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'utf-8-sig': 'utf-8',
  'utf8-sig': 'utf-8',
  u8: 'utf-8',
  'us-ascii': 'utf-8',
  ascii: 'utf-8',
  'latin-1': 'latin-1',
  latin1: 'latin-1',
  'iso-8859-1': 'latin-1',
  'iso8859-1': 'latin-1',
  'iso-latin-1': 'latin-1',
  l1: 'latin-1',
  cp1252: 'windows-1252',
  'windows-1252': 'windows-1252',
  'iso-8859-15': 'iso-8859-15',
  'iso8859-15': 'iso-8859-15',
  latin9: 'iso-8859-15',
  'iso-8859-2': 'iso-8859-2',
  cp1250: 'windows-1250',
  'windows-1250': 'windows-1250',
  cp1251: 'windows-1251',
  'windows-1251': 'windows-1251',
  'koi8-r': 'koi8-r',
  'koi8-u': 'koi8-u',
  'utf-16': 'utf-16',
  utf16: 'utf-16',
  'utf-16-le': 'utf-16le',
  'utf-16le': 'utf-16le',
  'utf-16-be': 'utf-16be',
  'utf-16be': 'utf-16be',
  'utf-32': 'utf-32',
  utf32: 'utf-32',
  'utf-32-le': 'utf-32le',
  'utf-32le': 'utf-32le',
  'utf-32-be': 'utf-32be',
  'utf-32be': 'utf-32be',
};

/** PEP 263: `coding[:=]` in a comment on line 1, or on line 2 when line 1 is only a comment or blank. */
const CODING = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;
const BLANK_OR_COMMENT = /^[ \t\f]*(?:#|$)/;

/** The encoding Python would read `bytes` in, from its BOM or coding line (`utf-8` by default). */
export function pythonEncoding(bytes: Buffer): { declared: string; bom: boolean } {
  const bom = bom32or16(bytes);
  if (bom) return { declared: bom, bom: true };
  const utf8Bom = BOM_UTF8.every((b, i) => bytes[i] === b);
  const head = bytes.subarray(utf8Bom ? 3 : 0, Math.min(bytes.length, 4096)).toString('latin1');
  const [first = '', second = ''] = head.split(/\r\n|\r|\n/, 2);
  const match = CODING.exec(first) ?? (BLANK_OR_COMMENT.test(first) ? CODING.exec(second) : null);
  const declared = match?.[1] ? normalise(match[1]) : 'utf-8';
  return { declared, bom: utf8Bom };
}

function normalise(name: string): string {
  const n = name.toLowerCase().replace(/_/g, '-');
  // CPython's get_normal_name: `utf-8-…` and `latin-1-…` prefixes name those codecs.
  if (n === 'utf-8' || n.startsWith('utf-8-')) return n === 'utf-8-sig' ? n : 'utf-8';
  if (/^(?:latin-1|iso-8859-1|iso-latin-1)(?:-|$)/.test(n)) return 'latin-1';
  return n;
}

function bom32or16(bytes: Buffer): string | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return 'utf-32le';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'utf-32be';
  if (a === 0xff && b === 0xfe) return 'utf-16le';
  if (a === 0xfe && b === 0xff) return 'utf-16be';
  return undefined;
}

/** Decodes `bytes` as the file's language reads it; what it cannot read faithfully is a problem. */
export function decodeSource(language: SourceLanguage, bytes: Buffer): SourceText {
  const problems: SourceProblem[] = [];
  let encoding = 'utf-8';
  let text: string;
  if (language === 'python') {
    const { declared } = pythonEncoding(bytes);
    const label = PY_CODECS[declared];
    if (label === undefined) {
      problems.push({ kind: 'source-encoding', line: 1, detail: `declared source encoding ${declared} is not one the scan reads faithfully` });
      // Still read: whatever ASCII it holds stays findable.
      text = bytes.toString('latin1');
      encoding = declared;
    } else {
      encoding = label;
      text = decodeAs(label, bytes);
    }
  } else {
    // Node and the TypeScript toolchains read UTF-8, with a UTF-8 BOM dropped.
    text = decodeAs('utf-8', bytes);
  }
  const nul = text.indexOf('\0');
  if (nul !== -1) problems.push({ kind: 'nul-byte', line: lineAt(text, nul), detail: 'a source file with a NUL byte (git calls it binary)' });
  return { text, encoding, problems };
}

function decodeAs(label: string, bytes: Buffer): string {
  if (label.startsWith('utf-32')) return decodeUtf32(label, bytes);
  if (label === 'latin-1') return stripBom(bytes.toString('latin1'));
  if (label === 'utf-16') label = bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : 'utf-16le';
  // ignoreBOM false: the decoder drops a leading BOM of its own encoding, as the interpreters do.
  return new TextDecoder(label, { fatal: false }).decode(bytes);
}

function stripBom(text: string): string {
  return text.startsWith('\ufeff') ? text.slice(1) : text;
}

/** TextDecoder has no UTF-32. */
function decodeUtf32(label: string, bytes: Buffer): string {
  const big = label === 'utf-32be' || (label === 'utf-32' && bytes[0] === 0 && bytes[2] === 0xfe);
  const points: number[] = [];
  for (let i = 0; i + 3 < bytes.length; i += 4) {
    const cp = big ? bytes.readUInt32BE(i) : bytes.readUInt32LE(i);
    points.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
  }
  let out = '';
  for (let i = 0; i < points.length; i += 4096) out += String.fromCodePoint(...points.slice(i, i + 4096));
  return stripBom(out);
}

export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
