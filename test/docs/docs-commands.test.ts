/**
 * Every `crucible …` command line the README and docs/*.md show in a shell code block works as
 * written. Each one is parsed by the real CLI program in-process (an unknown command or option, a
 * missing argument, a bad option value fails here), a synopsis has every flag it names checked,
 * every `examples/…` path it names must exist; and the cheap ones that need no key, registry or
 * network run for real with the built CLI from a fresh copy of the repository, with the default
 * (relative) state directory. When a documented command breaks, this test fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { captureIo } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';
import { docCommands, freshCopy, type DocCommand } from './doc-commands.js';

const tempDir = useTempDirs();
const ROOT = resolve('.');
const COMMANDS = docCommands(ROOT);

let program: Command;

/** Thrown by the test's preAction hook: the line parsed, and the action is never run. */
class Parsed extends Error {
  constructor(readonly command: Command) {
    super('parsed');
  }
}

beforeAll(async () => {
  program = createProgram(captureIo().io).command;
  const silence = (command: Command): void => {
    command.configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
    for (const sub of command.commands) silence(sub);
  };
  silence(program);
  program.hook('preAction', (_program, action) => {
    throw new Parsed(action);
  });
});

/** Parses `argv` as the CLI would; the command it reaches, or the usage error it gives. */
async function parse(argv: string[]): Promise<{ command?: Command; error?: string }> {
  try {
    await program.parseAsync(argv, { from: 'user' });
    return { error: 'no command ran (a command group without its subcommand?)' };
  } catch (error) {
    if (error instanceof Parsed) return { command: error.command };
    if (error instanceof CommanderError) return error.exitCode === 0 ? {} : { error: error.message };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** The subcommand a synopsis names (`crucible diagnostics mutations [--catalog FILE]`). */
function commandOf(words: string[]): Command | undefined {
  let command: Command = program;
  for (const word of words) {
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub === undefined) break;
    command = sub;
  }
  return command === program ? undefined : command;
}

function label(c: DocCommand): string {
  return `${c.where}: crucible ${c.text.replace(/^.*?crucible\s+/, '')}`;
}

describe('the commands the docs show', () => {
  it('finds them (README and docs/)', () => {
    expect(COMMANDS.length).toBeGreaterThan(60);
    expect(COMMANDS.some((c) => c.where.startsWith('README.md'))).toBe(true);
  });

  it('parse with the real CLI, name only existing options and example files', async () => {
    const problems: string[] = [];
    for (const c of COMMANDS) {
      if (c.synopsis) {
        const words = c.text.replace(/^.*?crucible\s+/, '').split(/\s+/);
        const command = commandOf(words);
        if (command === undefined) {
          problems.push(`${label(c)}: no such command`);
          continue;
        }
        const known = new Set(command.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined));
        for (const flag of c.text.match(/(?<![\w-])--?[a-z][a-z-]*/g) ?? [])
          if (!known.has(flag) && flag !== '--help') problems.push(`${label(c)}: ${command.name()} has no option ${flag}`);
        continue;
      }
      const argv = c.argv as string[];
      const { error } = await parse(argv);
      if (error !== undefined) problems.push(`${label(c)}: ${error}`);
      for (const word of argv.flatMap((w) => w.split('=')))
        if (word.startsWith('examples/') && !existsSync(join(ROOT, word))) problems.push(`${label(c)}: ${word} does not exist`);
    }
    expect(problems).toEqual([]);
  });

  it('fails a command line that no longer parses (the check can fail)', async () => {
    expect((await parse(['tests', 'examples/tasks.yaml', '--task', 'js-slugify', '--no-such-flag'])).error).toMatch(/unknown option/);
    expect((await parse(['plan', 'examples/tasks.yaml'])).error).toMatch(/required option '--detect <diff>'/);
    expect((await parse(['tests', 'examples/tasks.yaml', '--task', 'js-slugify'])).command?.name()).toBe('tests');
  });
});

// Issue 27: a relative state directory reached git running in another cwd. Every command gets it
// absolute before its action, given relative, absolute or by default.
describe("every command's state directory", () => {
  it('gives every command its state directory absolute, whether -o is relative or absolute', async () => {
    const leaves: Array<{ path: string[]; command: Command }> = [];
    const walk = (command: Command, path: string[]): void => {
      if (command.commands.length === 0) leaves.push({ path, command });
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(program, []);
    const withStateDir = leaves.filter(({ command }) => command.options.some((o) => o.attributeName() === 'out' && o.defaultValue === '.crucible'));
    expect(withStateDir.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const { path, command } of withStateDir) {
      // The least that parses: each required argument and option given a value it accepts.
      const args = command.registeredArguments.filter((a) => a.required).map(() => 'x');
      const options = command.options.filter((o) => o.mandatory).flatMap((o) => [o.long as string, o.argChoices?.[0] ?? 'x']);
      for (const out of ['rel/state', '/tmp/abs-state', undefined]) {
        const { command: parsed, error } = await parse([...path, ...args, ...options, ...(out === undefined ? [] : ['-o', out])]);
        const got = parsed?.opts<{ out?: string }>().out;
        const want = resolve(out ?? '.crucible');
        if (got !== want) problems.push(`crucible ${path.join(' ')} -o ${out ?? '(default)'}: out is ${got ?? error ?? 'unset'}, expected ${want}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

/**
 * The cheap documented commands, run for real: no key, no registry, no network, a few seconds
 * each. `/tmp/…` output paths are redirected into the test's own directory. (docs/datasets.md's
 * offline example reads the repository make-repo.sh builds at /tmp/datasets, a fixed path:
 * test/importers/dataset-example.test.ts builds it elsewhere and runs the example against it.)
 */
const RUN_FOR_REAL = [
  'crucible tests examples/tasks.yaml --task js-slugify',
  'crucible schema --out taskset.schema.json',
  'crucible import harbor examples/harbor/hello-file -o /tmp/harbor',
  'crucible history --runs',
];

describe('the cheap documented commands, from a fresh copy with the default state directory', () => {
  let copy: string;
  beforeAll(() => {
    // Not a per-test temp dir: the copy outlives each test of this block.
    copy = freshCopy(ROOT);
  });

  afterAll(() => rmSync(dirname(copy), { recursive: true, force: true }));

  it('are documented (each one is a command line of the docs)', () => {
    const documented = new Set(COMMANDS.filter((c) => !c.synopsis).map((c) => `crucible ${(c.argv as string[]).join(' ')}`));
    for (const line of RUN_FOR_REAL) expect(documented.has(line), line).toBe(true);
  });

  it.each(RUN_FOR_REAL)('%s', { timeout: 180_000 }, (line) => {
    const out = tempDir();
    const argv = line
      .split(' ')
      .slice(1)
      .map((w) => (w.startsWith('/tmp/') ? join(out, w.slice('/tmp/'.length)) : w));
    const result = spawnSync(process.execPath, [join(copy, 'bin/crucible.js'), ...argv], {
      cwd: copy,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', CI: 'true' },
      timeout: 170_000,
    });
    expect(result.error).toBeUndefined();
    expect(result.status, `${line}\n${result.stdout}\n${result.stderr}`).toBe(0);
  });
});
