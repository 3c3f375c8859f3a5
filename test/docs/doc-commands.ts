import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One `crucible …` command line of a shell code block in the docs. */
export interface DocCommand {
  /** `file:line`, for the failure message. */
  where: string;
  /** The line as written (continuation lines joined). */
  text: string;
  /** The words after `crucible`, shell-quoting removed; undefined for a synopsis. */
  argv?: string[];
  /** A usage synopsis (`[--flag X]`, `<run-id>`, `a | b`, `…`): its flags are checked, not its values. */
  synopsis: boolean;
}

const SHELL_LANGS = new Set(['', 'sh', 'bash', 'shell', 'console']);

/** Every `crucible` command line in the README and docs/*.md code blocks of shell (or no) language. */
export function docCommands(root: string): DocCommand[] {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => commandsOf(file, readFileSync(join(root, file), 'utf8')));
}

function commandsOf(file: string, text: string): DocCommand[] {
  const out: DocCommand[] = [];
  const lines = text.split('\n');
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const open = /^\s*```(\S*)/.exec(line);
    if (open) {
      fence = fence === undefined ? (open[1] ?? '') : undefined;
      continue;
    }
    if (fence === undefined || !SHELL_LANGS.has(fence)) continue;
    const start = i + 1;
    let joined = line.trim();
    while (joined.endsWith('\\') && i + 1 < lines.length) joined = `${joined.slice(0, -1)} ${(lines[++i] as string).trim()}`;
    if (joined.startsWith('#')) continue;
    const command = crucibleSegment(joined);
    if (command === undefined) continue;
    const synopsis = /\[--|\[-[a-z]\b|<[^>]*>|\s\|\s|…|\[[A-Z]/.test(command);
    out.push({ where: `${file}:${start}`, text: joined, synopsis, ...(synopsis ? {} : { argv: shellWords(command) }) });
  }
  return out;
}

/** The `crucible …` part of a shell line: after `npx` (of the command or of its package, crucible-harness) and VAR=value words, before `#`, `>`, `|`, `&&`. */
function crucibleSegment(line: string): string | undefined {
  const segments = line.split(/\s&&\s|;\s/);
  for (const segment of segments) {
    const match = /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:npx\s+)?crucible(?:-harness)?\s+([a-z].*)$/.exec(segment.trim());
    if (!match) continue;
    let rest = match[1] as string;
    rest = rest.replace(/\s+#.*$/, '');
    rest = rest.replace(/\s+(?:>|\|)\s.*$/, '');
    return rest.trim();
  }
  return undefined;
}

/** Shell words with single and double quotes removed (no expansion: the docs' lines are literal). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end === -1) throw new Error(`unbalanced ${c} in ${text}`);
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * A fresh copy of what git tracks in `root` (no .crucible, no build output), with the build and
 * the installed packages linked in: a user's clone after `npm ci && npm run build`. Its parent is
 * a directory of its own, for the caller to remove.
 */
export function freshCopy(root: string): string {
  if (!existsSync(join(root, 'dist/cli/main.js'))) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  const copy = join(mkdtempSync(join(tmpdir(), 'crucible-docs-')), 'crucible');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '');
  for (const file of tracked) {
    if (!existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file), { verbatimSymlinks: true });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  symlinkSync(join(root, 'dist'), join(copy, 'dist'));
  return copy;
}
