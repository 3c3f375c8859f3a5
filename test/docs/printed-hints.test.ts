/**
 * Every command the CLI prints as the next step (`next:`, a `fix:`, a gate or compare command)
 * runs as printed from the directory the user is in. In a fresh copy of the repository, as a user
 * would: import harbor, init, run → baseline save → gate, grade → compare, export, and a run with
 * no agent; each command their output names is collected and run (or, where it needs a value only
 * the user has, its placeholder filled in as the hint says and then run).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { INIT_PLACEHOLDER_ID } from '../../src/features/authoring/init.js';
import { captureIo, runCli } from '../helpers/cli.js';
import { attemptBudget } from '../helpers/budget.js';
import { git } from '../helpers/git.js';
import { useTempDirs } from '../helpers/tmp.js';
import { freshCopy, shellWords } from './doc-commands.js';

const tempDir = useTempDirs();
const ROOT = resolve('.');
const SUBCOMMANDS = new Set(createProgram(captureIo().io).command.commands.map((c) => c.name()));

let copy: string;
beforeAll(() => {
  copy = freshCopy(ROOT);
});
afterAll(() => rmSync(dirname(copy), { recursive: true, force: true }));

interface Ran {
  status: number | null;
  out: string;
}

/**
 * The CLI in the copy, from `cwd` (the copy by default), as a user runs it: in-process (runCli, the
 * program over the process's directory made `cwd`), since what is checked is what it prints and
 * where its paths lead, not the process.
 */
async function cli(argv: readonly string[], cwd = copy): Promise<Ran> {
  const r = await runCli([...argv], { cwd });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/**
 * The `crucible <command> …` lines an output prints where a hint puts a command (starting a line,
 * after `: `, `(` or a backtick), from `crucible` and a real subcommand to the end of the line, a
 * `)`, a `;` or a closing backtick (how every hint ends its command).
 */
function printedCommands(output: string): string[] {
  const found: string[] = [];
  for (const match of output.matchAll(/(?<=^[ \t]*|: |\(|`)crucible ([a-z][a-z-]*)\b[^\n`);]*/gm)) {
    if (SUBCOMMANDS.has(match[1] as string)) found.push(match[0].trim().replace(/[.,]$/, ''));
  }
  return found;
}

/** The words after `crucible`, each `<placeholder>` replaced by its value (a hint's placeholder is the user's to fill). */
function argvOf(command: string, values: Readonly<Record<string, string>> = {}): string[] {
  return shellWords(command)
    .slice(1)
    .map((word) => {
      if (!/^<.*>$/.test(word)) return word;
      const value = values[word];
      if (value === undefined) throw new Error(`${command}: no value for ${word}`);
      return value;
    });
}

/** Paths a hint names are where the user is: relative ones exist from cwd and never climb out as ../.. . */
function expectPathsFromHere(command: string, cwd = copy): void {
  for (const word of shellWords(command).filter((w) => /\.(ya?ml|json|jsonl)$/.test(w))) {
    expect(word, command).not.toMatch(/^\.\.\//);
    expect(existsSync(isAbsolute(word) ? word : join(cwd, word)), `${command}: ${word} does not exist from ${cwd}`).toBe(true);
  }
}

function runIdOf(output: string): string {
  const id = /attempts.*\brun (\S+)/.exec(output)?.[1];
  if (id === undefined) throw new Error(`no run id in:\n${output}`);
  return id;
}

describe('the hints the CLI prints run as printed, from the current directory', () => {
  it(
    'import harbor: the next step names the task set from here and the docker sandbox its tasks need, and validates',
    async () => {
      const relative = await cli(['import', 'harbor', 'examples/harbor/hello-file', '-o', 'imported/harbor']);
      expect(relative.status, relative.out).toBe(0);
      expect(printedCommands(relative.out)).toEqual(['crucible validate imported/harbor/tasks.yaml --sandbox docker']);

      // An absolute --out is echoed absolute, never as ../../…
      const elsewhere = join(tempDir(), 'harbor');
      const absolute = await cli(['import', 'harbor', 'examples/harbor/hello-file', '-o', elsewhere]);
      expect(absolute.status, absolute.out).toBe(0);
      expect(absolute.out).not.toContain('../');
      expect(printedCommands(absolute.out)).toEqual([`crucible validate ${join(elsewhere, 'tasks.yaml')} --sandbox docker`]);

      for (const hint of printedCommands(relative.out)) {
        expectPathsFromHere(hint);
        const r = await cli(argvOf(hint));
        expect(r.status, `${hint}\n${r.out}`).toBe(0);
      }
    },
    attemptBudget(6),
  );

  it(
    'init: the validate it prints runs from here once the test id is filled in as it says',
    async () => {
      const repo = join(copy, 'work', 'js-slugify');
      mkdirSync(dirname(repo), { recursive: true });
      cpSync(join(copy, 'examples/repos/js-slugify'), repo, { recursive: true });
      git(dirname(repo), 'init', '-q', '-b', 'main', repo);
      git(repo, 'add', '-A');
      git(repo, 'commit', '-qm', 'base');
      const init = await cli(['init', 'work/js-slugify', '--sandbox', 'bwrap']);
      expect(init.status, init.out).toBe(0);
      const hints = printedCommands(init.out);
      expect(hints.length, init.out).toBeGreaterThan(0);
      const tasks = join(repo, 'crucible.tasks.yaml');
      writeFileSync(tasks, readFileSync(tasks, 'utf8').replace(INIT_PLACEHOLDER_ID, 'slugify > strips leading and trailing punctuation'));
      expect(hints.some((h) => h.startsWith('crucible mine '))).toBe(true);
      for (const hint of hints) {
        expectPathsFromHere(hint);
        const r = await cli(argvOf(hint));
        // mine on a one-commit repository runs and finds nothing to keep: exit 1, with its reason.
        if (hint.startsWith('crucible mine ')) expect(r.out, hint).toMatch(/no task kept from 1 commits walked/);
        else expect(r.status, `${hint}\n${r.out}`).toBe(0);
      }
    },
    attemptBudget(6),
  );

  it(
    "run → baseline save → gate, grade → compare, export: each printed command runs, and export's counts add up",
    async () => {
      const run = await cli(['run', 'examples/tasks.yaml', '--agent', 'oracle', '--task', 'js-slugify']);
      expect(run.status, run.out).toBe(0);
      const oracleRun = runIdOf(run.out);

      // A baseline saved elsewhere: its gate command still names the task set from here.
      const away = join(tempDir(), 'baselines', 'main.json');
      const savedAway = await cli(['baseline', 'save', oracleRun, '--out', away]);
      expect(savedAway.status, savedAway.out).toBe(0);
      expect(printedCommands(savedAway.out)).toEqual([`crucible gate examples/tasks.yaml --baseline ${away}`]);
      const saved = await cli(['baseline', 'save', oracleRun, '--out', 'baselines/main.json']);
      expect(saved.status, saved.out).toBe(0);
      const [gate, ...more] = printedCommands(saved.out);
      expect(more).toEqual([]);
      expect(gate).toBe('crucible gate examples/tasks.yaml --baseline baselines/main.json');
      expectPathsFromHere(gate as string);
      const gated = await cli(argvOf(gate as string));
      expect(gated.status, `${gate}\n${gated.out}`).toBe(0);

      // A graded model: one resolved, one empty patch; one agent, so the compare command is the hint.
      const predictions = join(tempDir(), 'predictions.jsonl');
      const patch = readFileSync(join(copy, 'examples/oracles/js-slugify.patch'), 'utf8');
      writeFileSync(
        predictions,
        [
          { instance_id: 'js-slugify', model_name_or_path: 'my-model', model_patch: patch },
          { instance_id: 'js-sortby', model_name_or_path: 'my-model', model_patch: '' },
        ]
          .map((p) => JSON.stringify(p))
          .join('\n'),
      );
      const graded = await cli(['grade', 'examples/tasks.yaml', '--predictions', predictions]);
      expect(graded.status, graded.out).toBe(1);
      expect(graded.out).not.toContain('--agent');
      const gradeRun = runIdOf(graded.out);
      const compares = printedCommands(graded.out).filter((c) => c.startsWith('crucible compare'));
      expect(compares, graded.out).toEqual([`crucible compare <other-run-id> ${gradeRun}`]);
      const compared = await cli(argvOf(compares[0] as string, { '<other-run-id>': oracleRun }));
      expect(compared.status, compared.out).toBe(0);

      const exported = await cli(['export', gradeRun, '--format', 'swe-bench']);
      expect(exported.status, exported.out).toBe(0);
      const counts = /my-model: (.*) of (\d+)/.exec(exported.out);
      expect(counts, exported.out).not.toBeNull();
      const parts = (counts?.[1] ?? '').split(', ').map((p) => Number(p.split(' ')[0]));
      expect(parts.reduce((a, b) => a + b, 0)).toBe(Number(counts?.[2]));
      expect(counts?.[1]).toContain('1 resolved');
      expect(counts?.[1]).toContain('1 empty patch');
      for (const line of exported.out.split('\n').filter((l) => l.startsWith('wrote '))) {
        const file = line.slice('wrote '.length);
        expect(isAbsolute(file) ? file : join(copy, file)).toSatisfy(existsSync);
      }
    },
    attemptBudget(12),
  );

  it(
    'no agent given: the fix names no attack agent, and the command it prints runs',
    async () => {
      const r = await cli(['run', 'examples/tasks.yaml', '--task', 'js-slugify']);
      expect(r.status).toBe(2);
      expect(r.out.trim().split('\n')).toHaveLength(1);
      // The agents the fix offers: the user's own (NAME) and oracle, which proves the tasks; never one that cheats on purpose.
      expect(new Set([...r.out.matchAll(/--agent (\S+?)[,;)]?(?=\s|$)/g)].map((m) => m[1]))).toEqual(new Set(['NAME', 'oracle']));
      const hints = printedCommands(r.out).filter((c) => c.startsWith('crucible run'));
      expect(hints).toEqual(['crucible run examples/tasks.yaml --agent oracle']);
      // Run as printed, narrowed to one task (the whole example set is what the hint runs).
      const ran = await cli([...argvOf(hints[0] as string), '--task', 'js-slugify']);
      expect(ran.status, ran.out).toBe(0);
    },
    attemptBudget(2),
  );
});
