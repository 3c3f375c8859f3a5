/**
 * Path globs as task files write them (`src/**`, `**\/*.test.*`, `tests/{unit,e2e}/**`), matched
 * against workspace-relative paths with `/` separators. Deliberately small and predictable:
 *
 * - `**` is any number of whole segments (zero included), `*` any run of characters within one
 *   segment, `?` one character, `[...]` a character class, `{a,b}` alternatives.
 * - Dotfiles are not special: `*` matches `.env`. Guards must not have blind spots.
 * - A pattern matches the whole path from the workspace root (`*.py` is top-level files only;
 *   write `**\/*.py` for any depth), and everything under a directory it matches (`src` covers
 *   `src/a.ts`). A leading `./` or `/` and a trailing `/` are ignored; paths are cleaned up
 *   lexically (`//`, `/./`, `a/..`) before matching, byte-exact and case-sensitive otherwise.
 */
export type PathMatcher = (path: string) => boolean;

const cache = new Map<string, RegExp>();

export function globToRegExp(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  const body = translate(normalisePattern(pattern));
  const regex = new RegExp(`^(?:${body})(?:/.*)?$`);
  cache.set(pattern, regex);
  return regex;
}

export function matchesGlob(path: string, pattern: string): boolean {
  return globToRegExp(pattern).test(normalisePath(path));
}

/** True when `path` matches any of `patterns`; returns the first pattern that matched. */
export function firstMatch(path: string, patterns: readonly string[]): string | undefined {
  const normalised = normalisePath(path);
  return patterns.find((p) => globToRegExp(p).test(normalised));
}

export function matcher(patterns: readonly string[]): PathMatcher {
  const regexes = patterns.map(globToRegExp);
  return (path) => {
    const normalised = normalisePath(path);
    return regexes.some((r) => r.test(normalised));
  };
}

function normalisePattern(pattern: string): string {
  return pattern
    .trim()
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '')
    .replace(/\/+$/, '');
}

/**
 * Lexical clean-up, so a spelling of a path can never slip past a pattern the plain spelling
 * matches (`.github//ci.yml`, `src/../secrets/k`, `a/./b`): empty and `.` segments go, `x/..`
 * pairs cancel. A `..` that would climb above the root stays, so it matches no rooted pattern.
 */
function normalisePath(path: string): string {
  const out: string[] = [];
  for (const segment of path.replace(/\\/g, '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(segment);
  }
  return out.join('/');
}

function translate(glob: string): string {
  let out = '';
  let i = 0;
  let braces = 0;
  while (i < glob.length) {
    const c = glob.charAt(i);
    if (c === '*') {
      if (glob.charAt(i + 1) === '*') {
        const atStart = i === 0 || glob.charAt(i - 1) === '/';
        const next = glob.charAt(i + 2);
        if (atStart && next === '/') {
          out += '(?:[^/]*/)*'; // `**/`: zero or more whole segments
          i += 3;
          continue;
        }
        if (atStart && next === '') {
          out += '.*';
          i += 2;
          continue;
        }
        out += '[^/]*'; // `a**b` is two stars within a segment
        i += 2;
        continue;
      }
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
      } else {
        let cls = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (cls.startsWith('!')) cls = `^${cls.slice(1)}`;
        out += `(?!/)[${cls}]`;
        i = end;
      }
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) {
      out += '|';
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escape(glob.charAt(i + 1));
      i++;
    } else {
      out += escape(c);
    }
    i++;
  }
  return out + ')'.repeat(braces);
}

function escape(c: string): string {
  return /[.+^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
