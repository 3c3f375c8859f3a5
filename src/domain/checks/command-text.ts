/**
 * Reading recorded commands the way a shell would, closely enough for policy rules: the script of
 * `sh -c` / `bash -lc`, a quote-aware word splitter, and the paths a command line writes to.
 * It is a heuristic by nature (shells are Turing-complete); it errs towards not accusing.
 */
import { posix } from 'node:path';
import { shellWord } from '../../core/format/index.js';

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash']);

/** The command line as a person would read it: a shell's script, or the argv shell-quoted. */
export function commandText(argv: readonly string[]): string {
  const [program, ...rest] = argv;
  if (program !== undefined && SHELLS.has(posix.basename(program))) {
    const flagIndex = rest.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    const script = flagIndex === -1 ? undefined : rest[flagIndex + 1];
    if (script !== undefined) return script;
  }
  return argv.map(shellWord).join(' ');
}

/**
 * The command line and every shell script nested in it (`bash -c '…'` inside `sh -c`), so that a
 * rule cannot be dodged by one more layer of shell: the inner script is what the shell runs.
 */
export function commandScripts(argv: readonly string[]): string[] {
  const scripts = [commandText(argv)];
  for (let i = 0; i < scripts.length && scripts.length < 16; i++) {
    const words = shellWords(scripts[i] as string)
      .filter((w) => !w.operator)
      .map((w) => w.text);
    words.forEach((word, at) => {
      const flag = words[at + 1];
      const script = words[at + 2];
      if (SHELLS.has(posix.basename(word)) && flag !== undefined && /^-[a-z]*c[a-z]*$/.test(flag) && script !== undefined) scripts.push(script);
    });
  }
  return scripts;
}

export interface Word {
  text: string;
  /** Operators (`;`, `|`, `&&`, `>`…) are words of their own, marked here. */
  operator: boolean;
}

/** Splits a script into words and operators, honouring quotes and backslashes. */
export function shellWords(script: string): Word[] {
  const words: Word[] = [];
  let current = '';
  let inWord = false;
  const flush = (): void => {
    if (inWord) words.push({ text: current, operator: false });
    current = '';
    inWord = false;
  };
  for (let i = 0; i < script.length; i++) {
    const c = script.charAt(i);
    if (c === "'") {
      const end = script.indexOf("'", i + 1);
      current += script.slice(i + 1, end === -1 ? undefined : end);
      inWord = true;
      i = end === -1 ? script.length : end;
    } else if (c === '"') {
      let j = i + 1;
      while (j < script.length && script.charAt(j) !== '"') {
        if (script.charAt(j) === '\\' && j + 1 < script.length) j++;
        current += script.charAt(j);
        j++;
      }
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < script.length) {
      current += script.charAt(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      flush();
    } else if (c === '#' && !inWord) {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end - 1;
    } else {
      const op = /^(?:\d?>>|\d?>\||&>>|&>|\d?>&?|<<<|<<|<|&&|\|\||\||;|&|\(|\))/.exec(script.slice(i));
      if (op) {
        flush();
        words.push({ text: op[0], operator: true });
        i += op[0].length - 1;
      } else {
        current += c;
        inWord = true;
      }
    }
  }
  flush();
  return words;
}

const SEPARATORS = new Set([';', '&&', '||', '|', '&', '(', ')']);
const ALL_ARGS = new Set(['tee', 'touch', 'mkdir', 'rm', 'rmdir', 'truncate', 'chmod', 'chown', 'shred', 'unlink']);
const LAST_ARG = new Set(['cp', 'mv', 'ln', 'install', 'rsync']);

/**
 * Paths a script writes, resolved against `cwd` (following `cd` as it goes). Arguments that
 * depend on variables or command substitution are left out: they cannot be judged honestly.
 */
export function writeTargets(script: string, cwd: string): Array<{ path: string; via: string }> {
  const words = shellWords(script);
  const targets: Array<{ path: string; via: string }> = [];
  let dir = cwd;
  let segment: Word[] = [];
  const resolvePath = (p: string): string | undefined => (/[`$]/.test(p) || p === '' ? undefined : posix.resolve(dir, p));
  const endSegment = (): void => {
    const plain = segment.filter((w) => !w.operator).map((w) => w.text);
    const [name, ...args] = plain;
    const command = name === undefined ? undefined : posix.basename(name);
    const operands = args.filter((a) => !a.startsWith('-'));
    if (command === 'cd') {
      const to = operands[0] === undefined ? undefined : resolvePath(operands[0]);
      if (to !== undefined) dir = to;
    } else if (command !== undefined && ALL_ARGS.has(command)) {
      const skip = command === 'chmod' || command === 'chown' ? 1 : 0;
      for (const a of operands.slice(skip)) push(a, command);
    } else if (command !== undefined && LAST_ARG.has(command) && operands.length >= 2) {
      push(operands[operands.length - 1] as string, command);
      if (command === 'mv') for (const a of operands.slice(0, -1)) push(a, command);
    } else if (command === 'dd') {
      for (const a of args) if (a.startsWith('of=')) push(a.slice(3), command);
    }
    segment = [];
  };
  const push = (p: string, via: string): void => {
    const abs = resolvePath(p);
    if (abs !== undefined) targets.push({ path: abs, via });
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as Word;
    if (word.operator && /^(?:\d?>>|\d?>\||&>>|&>|\d?>)$/.test(word.text)) {
      const next = words[i + 1];
      if (next && !next.operator) {
        push(next.text, word.text);
        i++;
      }
      continue;
    }
    if (word.operator && (word.text === '<' || word.text === '<<' || word.text === '<<<' || /^\d?>&$/.test(word.text))) {
      i++; // input redirections and fd duplications (`2>&1`) name no file to write
      continue;
    }
    if (word.operator && SEPARATORS.has(word.text)) {
      endSegment();
      continue;
    }
    segment.push(word);
  }
  endSegment();
  return targets;
}
