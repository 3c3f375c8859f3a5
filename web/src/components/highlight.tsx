import type { ReactNode } from 'react';

/*
 * A small, dependency-free highlighter for diff lines: strings, comments, numbers and keywords of
 * the languages task repos are usually written in. Line by line, so a multi-line string or comment
 * is coloured only where its delimiters are visible; good enough to read a patch.
 */

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue def default del delete do elif else enum export extends false ' +
    'final finally fn for from func function go if impl import in instanceof interface is lambda let match mod module mut new nil ' +
    'None not null of or package pass pub raise return self static struct super switch this throw True False true try type typeof ' +
    'use var void while with yield and assert global nonlocal readonly private protected public'
  ).split(' '),
);

const TOKEN = /(\/\/.*$|#.*$|\/\*.*?\*\/|"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?|\b\d[\d_.]*(?:e[+-]?\d+)?\b|\b[A-Za-z_$][\w$]*\b)/g;

export type Lang = 'hash' | 'slash' | 'plain';

export function langOf(path: string): Lang {
  if (/\.(py|sh|bash|rb|ya?ml|toml|r|pl|cfg|ini)$/i.test(path) || /(^|\/)(Makefile|Dockerfile)$/.test(path)) return 'hash';
  if (/\.(m?[jt]sx?|c|h|cc|cpp|hpp|java|kt|go|rs|swift|cs|php|scala|css|scss)$/i.test(path)) return 'slash';
  return 'plain';
}

function classOf(token: string, lang: Lang): string | null {
  const c = token[0];
  if (token.startsWith('//') || token.startsWith('/*')) return lang === 'slash' ? 'tok-comment' : null;
  if (c === '#') return lang === 'hash' ? 'tok-comment' : null;
  if (c === '"' || c === "'" || c === '`') return 'tok-string';
  if (c !== undefined && c >= '0' && c <= '9') return 'tok-number';
  if (KEYWORDS.has(token)) return 'tok-keyword';
  return null;
}

function tokens(text: string, lang: Lang, keyPrefix: string): ReactNode[] {
  if (lang === 'plain') return [text];
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const start = m.index;
    const tok = m[0];
    const cls = classOf(tok, lang);
    if (cls === null) continue;
    if (start > last) out.push(text.slice(last, start));
    out.push(
      <span key={`${keyPrefix}${start}`} className={cls}>
        {tok}
      </span>,
    );
    last = start + tok.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Highlights a line, with the changed middle (if any) wrapped for emphasis. */
export function highlightLine(text: string, lang: Lang, change?: [number, number]): ReactNode[] {
  if (!change) return tokens(text, lang, 'a');
  const [from, to] = change;
  return [
    ...tokens(text.slice(0, from), lang, 'a'),
    <mark key="change" className="change">
      {tokens(text.slice(from, to), lang, 'b')}
    </mark>,
    ...tokens(text.slice(to), lang, 'c'),
  ];
}
