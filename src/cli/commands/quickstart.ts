import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pc from 'picocolors';
import { InputError } from '../../core/errors.js';
import { shellWord } from '../../core/format/index.js';
import { resolveSafestSandbox, sandboxTraits, type SafestSandbox } from '../../infra/sandbox/index.js';
import { bundledExamplesDir, QUICKSTART_CASSETTES, QUICKSTART_EXAMPLES, QUICKSTART_MODEL } from '../bundled-examples.js';
import { shownPath, type CliIo } from '../io.js';
import { runCommand } from './run.js';

export interface QuickstartOptions {
  /** Where the examples are copied (and, on a second run, read from). */
  dir: string;
  out: string;
}

/**
 * `crucible quickstart`: from any directory, the examples the package ships copied into
 * ./crucible-quickstart and run with Crucible's own agent on the model side of a committed
 * cassette (offline, no key), in the most confining sandbox this machine has.
 */
export async function quickstartCommand(opts: QuickstartOptions, io: CliIo): Promise<void> {
  const dir = resolve(io.cwd, opts.dir);
  const shown = shownPath(io, dir);
  const copied = copyExamples(dir, shown);
  const sandbox = await resolveSafestSandbox({ stateDir: opts.out });
  // Unsandboxed is acceptable only for the files Crucible ships: an edited copy (or one that was
  // there before, from anyone) may run anything, so it needs a sandbox.
  const changed = sandboxTraits(sandbox.kind).filesystem ? undefined : changedFromShipped(dir);
  if (changed !== undefined)
    throw new InputError(
      `${shown}/${changed}: differs from the examples Crucible ships, and no sandbox is available here to run changed files in (fix: remove ${shown} for a fresh copy, or install a sandbox: ${sandbox.unavailable?.fix ?? 'bubblewrap'})`,
    );
  io.stderr.write(`${copied}\n${sandboxLine(sandbox)}\n`);
  // The Python examples need pytest, which a machine with only Node and git lacks: left out, said so.
  const withPython = pytestRuns();
  if (!withPython)
    io.stderr.write(
      `${pc.yellow('note')} python3 with pytest is not here: the Python examples are left out (to run them too: sudo apt-get install -y python3-pytest)\n`,
    );
  const taskSet = join(shown, 'tasks.yaml');
  const replay = join(shown, QUICKSTART_CASSETTES);
  await runCommand(taskSet, { out: opts.out, model: [QUICKSTART_MODEL], replay, sandbox: sandbox.kind, ...(withPython ? {} : { tag: NON_PYTHON_TAGS }) }, io);
  io.stdout.write(
    [
      '',
      'next:',
      `  npx crucible-harness show js-slugify.openai   # one attempt's turns: model text, tool calls, results, tokens`,
      `  npx crucible-harness run ${shellWord(taskSet)} --agent oracle --agent nop --runs 3${withPython ? '' : NON_PYTHON_TAGS.map((t) => ` --tag ${t}`).join('')}   # the reference agents, no model`,
      '  npx crucible-harness view   # the dashboard',
      '',
    ].join('\n'),
  );
}

/** The tags that select every example but the Python ones (examples/tasks.yaml). */
const NON_PYTHON_TAGS = ['javascript', 'typescript'];

function pytestRuns(): boolean {
  return spawnSync('python3', ['-c', 'import pytest'], { stdio: 'ignore' }).status === 0;
}

/** Copies the shipped examples into `dir` the first time; later runs use what is there (a user's edits included). */
function copyExamples(dir: string, shown: string): string {
  if (existsSync(dir)) {
    const missing = QUICKSTART_EXAMPLES.filter((part) => !existsSync(join(dir, part)));
    if (missing.length > 0)
      throw new InputError(`${shown}: exists but is not a quick start copy (no ${missing.join(', ')}) (fix: remove it, or give another --dir)`);
    return `quick start: the examples in ${shown}/ (remove it for a fresh copy)`;
  }
  const examples = bundledExamplesDir();
  for (const part of QUICKSTART_EXAMPLES) cpSync(join(examples, part), join(dir, part), { recursive: true, errorOnExist: true, force: false });
  return `quick start: copied the examples Crucible ships into ${shown}/ (six tasks: JavaScript, TypeScript, Python)`;
}

/** The first path (relative to `dir`) whose content or kind is not what the package ships, if any. */
function changedFromShipped(dir: string): string | undefined {
  const examples = bundledExamplesDir();
  for (const part of QUICKSTART_EXAMPLES) {
    const diff = firstDifference(join(examples, part), join(dir, part), part);
    if (diff !== undefined) return diff;
  }
  return undefined;
}

function firstDifference(shipped: string, copy: string, rel: string): string | undefined {
  const a = lstatSync(shipped);
  const b = existsSync(copy) ? lstatSync(copy) : undefined;
  if (b === undefined) return rel;
  if (a.isDirectory()) {
    if (!b.isDirectory()) return rel;
    const names = readdirSync(shipped).sort();
    const copied = readdirSync(copy).sort();
    const extra = copied.find((n) => !names.includes(n));
    if (extra !== undefined) return join(rel, extra);
    for (const name of names) {
      const diff = firstDifference(join(shipped, name), join(copy, name), join(rel, name));
      if (diff !== undefined) return diff;
    }
    return undefined;
  }
  if (!b.isFile() || !a.isFile() || !readFileSync(shipped).equals(readFileSync(copy))) return rel;
  return undefined;
}

/** One line: which sandbox, and when it is not bwrap, why and how to get it. */
function sandboxLine(sandbox: SafestSandbox): string {
  const replayed = `the model replayed from the cassette Crucible ships (${QUICKSTART_MODEL}; no key, no network)`;
  if (sandbox.unavailable === undefined) return `sandbox: bwrap; ${replayed}`;
  const why = sandbox.unavailable.reasons.join('; ');
  const recorded = `recorded as sandbox ${sandbox.kind} in each attempt.json`;
  if (sandboxTraits(sandbox.kind).filesystem)
    return `${pc.yellow('warning')} no bubblewrap sandbox (${why}): the quick start runs in the ${sandbox.kind} sandbox instead (${recorded}); ${replayed}; for bwrap: ${sandbox.unavailable.fix}`;
  return (
    `${pc.yellow('warning')} no sandbox available (${why}): the quick start runs UNSANDBOXED on this machine (${recorded}), ` +
    `acceptable only because it runs nothing but the shipped examples' tests and ${replayed}; to sandbox it: ${sandbox.unavailable.fix}`
  );
}
