import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { cutOutput } from '../../../core/format/index.js';
import { maskDurations, scrubPaths, truncateMiddle } from './output.js';
import { confine, exec, firstLine, readText, SKIPPED_DIRS, ToolError, writeText, type WorkspaceAccess } from './workspace-files.js';

/**
 * The built-in agent's tools. Every one acts through the sandboxed executor, and paths are
 * confined to the workspace; a failure is a ToolError whose message the model gets back.
 * Definitions (what the model sees) are fixed text: nothing here varies between runs.
 */
export interface ToolEnv extends WorkspaceAccess {
  /** The task's public test command (`sh -c`), as the grader runs it. */
  testCommand: string;
  testTimeoutMs: number;
  maxTestRuns?: number;
  /** Absolute paths to hide from the model, with what to show instead. */
  pathAliases: ReadonlyArray<readonly [string, string]>;
  /** Milliseconds left before the agent's deadline. */
  remainingMs(): number;
}

export interface ToolOutcome {
  ok: boolean;
  output: string;
  /** Counted as test time rather than tool time. */
  isTest?: boolean;
  submitted?: { summary: string };
}

const MAX_OUTPUT_CHARS = 20_000;
const MAX_READ_LINES = 2000;
const MAX_LIST = 500;
const MAX_MATCHES = 200;

const input = {
  bash: z.object({
    command: z.string().describe('The command, run with bash -c in the repository root.'),
    timeout_seconds: z.number().int().min(1).max(600).optional().describe('Kill the command after this many seconds (default 120).'),
  }),
  read_file: z.object({
    path: z.string().describe('File path relative to the repository root.'),
    start_line: z.number().int().min(1).optional().describe('First line to show, 1-based.'),
    end_line: z.number().int().min(1).optional().describe('Last line to show, inclusive.'),
  }),
  write_file: z.object({
    path: z.string().describe('File path relative to the repository root.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  edit_file: z.object({
    path: z.string().describe('File path relative to the repository root.'),
    old_string: z.string().describe('Exact text to replace; must occur exactly once in the file.'),
    new_string: z.string().describe('The replacement text.'),
  }),
  list_files: z.object({
    path: z.string().optional().describe('Directory relative to the repository root (default: the root).'),
    max_depth: z.number().int().min(1).max(20).optional().describe('How deep to descend (default 4).'),
  }),
  search: z.object({
    pattern: z.string().describe('Extended regular expression (grep -E).'),
    path: z.string().optional().describe('File or directory to search (default: the whole repository).'),
    glob: z.string().optional().describe('Only files whose name matches this glob, e.g. "*.py".'),
  }),
  run_tests: z.object({}),
  submit: z.object({ summary: z.string().describe('One or two sentences on what you changed and why.') }),
};

export const TOOL_DEFINITIONS = {
  bash: tool({
    description: `Run a shell command in the repository root, without network access. Output over ${MAX_OUTPUT_CHARS} characters is cut in the middle.`,
    inputSchema: input.bash,
  }),
  read_file: tool({
    description: `Read a text file, optionally a range of lines. At most ${MAX_READ_LINES} lines are returned at once.`,
    inputSchema: input.read_file,
  }),
  write_file: tool({ description: 'Create or overwrite a file with the given content.', inputSchema: input.write_file }),
  edit_file: tool({
    description: 'Replace one exact occurrence of old_string with new_string in a file. Fails if old_string is missing or occurs more than once.',
    inputSchema: input.edit_file,
  }),
  list_files: tool({ description: 'List files under a directory, sorted; dependency and VCS directories are skipped.', inputSchema: input.list_files }),
  search: tool({
    description: `Search file contents with a regular expression; returns file:line:text, at most ${MAX_MATCHES} matches.`,
    inputSchema: input.search,
  }),
  run_tests: tool({ description: "Run the repository's test suite for this task and return its output.", inputSchema: input.run_tests }),
  submit: tool({ description: 'Finish: call this once your change is complete.', inputSchema: input.submit }),
} satisfies ToolSet;

export type ToolName = keyof typeof TOOL_DEFINITIONS;

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_DEFINITIONS, name);
}

/** Runs one validated tool call. Never throws for the model's mistakes: they come back as `ok: false`. */
export async function runTool(env: ToolEnv, state: { testRuns: number }, name: ToolName, args: unknown): Promise<ToolOutcome> {
  try {
    const outcome = await dispatch(env, state, name, args);
    return { ...outcome, output: scrubPaths(outcome.output, env.pathAliases) };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return { ok: false, output: scrubPaths(error.message, env.pathAliases) };
  }
}

async function dispatch(env: ToolEnv, state: { testRuns: number }, name: ToolName, args: unknown): Promise<ToolOutcome> {
  switch (name) {
    case 'bash':
      return bash(env, input.bash.parse(args));
    case 'read_file':
      return readFile(env, input.read_file.parse(args));
    case 'write_file': {
      const { path, content } = input.write_file.parse(args);
      const rel = await confine(env, path);
      await writeText(env, rel, content);
      return { ok: true, output: `wrote ${Buffer.byteLength(content)} bytes to ${rel}` };
    }
    case 'edit_file':
      return editFile(env, input.edit_file.parse(args));
    case 'list_files':
      return listFiles(env, input.list_files.parse(args));
    case 'search':
      return search(env, input.search.parse(args));
    case 'run_tests':
      return runTests(env, state);
    case 'submit':
      return { ok: true, output: 'Submitted.', submitted: { summary: input.submit.parse(args).summary } };
  }
}

async function bash(env: ToolEnv, args: z.infer<typeof input.bash>): Promise<ToolOutcome> {
  const timeoutMs = Math.max(1000, Math.min((args.timeout_seconds ?? 120) * 1000, env.remainingMs()));
  const result = await exec(env, ['bash', '-c', args.command], { timeoutMs, maxOutputBytes: 1024 * 1024 });
  const parts = [result.stdout, result.stderr ? `[stderr]\n${result.stderr}` : ''].filter((p) => p !== '');
  const status = result.timedOut
    ? `[timed out after ${Math.round(timeoutMs / 1000)}s and killed]`
    : `[exit code ${result.exitCode ?? `signal ${result.signal}`}]`;
  const body = cutOutput(parts.join('\n'), { maxChars: MAX_OUTPUT_CHARS, hint: 'narrow the command (grep, head, tail) to see the rest' });
  return { ok: true, output: `${body}${body.endsWith('\n') || body === '' ? '' : '\n'}${status}${result.truncated ? ' [output over 1 MiB was dropped]' : ''}` };
}

async function readFile(env: ToolEnv, args: z.infer<typeof input.read_file>): Promise<ToolOutcome> {
  const rel = await confine(env, args.path);
  const text = await readText(env, rel);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const start = args.start_line ?? 1;
  if (start > Math.max(lines.length, 1)) throw new ToolError(`${rel} has ${lines.length} lines; start_line ${start} is past the end`);
  const end = Math.min(args.end_line ?? lines.length, lines.length, start + MAX_READ_LINES - 1);
  if (end < start) throw new ToolError(`end_line ${end} is before start_line ${start}`);
  const shown = lines.slice(start - 1, end).join('\n');
  const whole = start === 1 && end === lines.length;
  const header = whole ? '' : `[${rel}: lines ${start}-${end} of ${lines.length}]\n`;
  return { ok: true, output: header + truncateMiddle(shown, 60_000, 'read a smaller line range') };
}

async function editFile(env: ToolEnv, args: z.infer<typeof input.edit_file>): Promise<ToolOutcome> {
  const rel = await confine(env, args.path);
  if (args.old_string === '') throw new ToolError('old_string is empty; use write_file to create a file');
  const text = await readText(env, rel);
  const count = text.split(args.old_string).length - 1;
  if (count === 0) throw new ToolError(`old_string was not found in ${rel}; read the file and copy the text exactly, whitespace included`);
  if (count > 1) throw new ToolError(`old_string occurs ${count} times in ${rel}; include more surrounding lines so it occurs once`);
  const index = text.indexOf(args.old_string);
  await writeText(env, rel, text.slice(0, index) + args.new_string + text.slice(index + args.old_string.length));
  return { ok: true, output: `edited ${rel}` };
}

async function listFiles(env: ToolEnv, args: z.infer<typeof input.list_files>): Promise<ToolOutcome> {
  const rel = await confine(env, args.path ?? '.');
  const prune = SKIPPED_DIRS.flatMap((d, i) => (i === 0 ? ['-name', d] : ['-o', '-name', d]));
  const argv = ['find', rel, '-maxdepth', String(args.max_depth ?? 4), '(', ...prune, ')', '-prune', '-o', '-type', 'f', '-print'];
  const result = await exec(env, argv, { maxOutputBytes: 4 * 1024 * 1024 });
  if (result.exitCode !== 0) throw new ToolError(firstLine(result.stderr) || `cannot list ${rel}`);
  // find's order is the filesystem's; sorted, the answer is the same on every machine.
  const files = result.stdout
    .split('\n')
    .filter((f) => f !== '')
    .map((f) => f.replace(/^\.\//, ''))
    .sort();
  if (files.length === 0) return { ok: true, output: `no files under ${rel}` };
  const shown = files.slice(0, MAX_LIST).join('\n');
  return { ok: true, output: files.length > MAX_LIST ? `${shown}\n[… ${files.length - MAX_LIST} more files; list a subdirectory]` : shown };
}

async function search(env: ToolEnv, args: z.infer<typeof input.search>): Promise<ToolOutcome> {
  const rel = await confine(env, args.path ?? '.');
  const argv = [
    'grep',
    '-rnIE',
    ...SKIPPED_DIRS.map((d) => `--exclude-dir=${d}`),
    ...(args.glob ? [`--include=${args.glob}`] : []),
    '-e',
    args.pattern,
    '--',
    rel,
  ];
  const result = await exec(env, argv, { maxOutputBytes: 4 * 1024 * 1024 });
  if (result.exitCode === 1) return { ok: true, output: 'no matches' };
  if (result.exitCode !== 0) throw new ToolError(firstLine(result.stderr) || 'search failed');
  const matches = result.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const m = /^(.*?):(\d+):/.exec(line);
      return { line: line.replace(/^\.\//, ''), file: m?.[1] ?? line, at: Number(m?.[2] ?? 0) };
    })
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.at - b.at))
    .map((m) => (m.line.length > 300 ? `${m.line.slice(0, 300)}…` : m.line));
  const shown = matches.slice(0, MAX_MATCHES).join('\n');
  return { ok: true, output: matches.length > MAX_MATCHES ? `${shown}\n[… ${matches.length - MAX_MATCHES} more matches; narrow the pattern or path]` : shown };
}

async function runTests(env: ToolEnv, state: { testRuns: number }): Promise<ToolOutcome> {
  if (env.maxTestRuns !== undefined && state.testRuns >= env.maxTestRuns) {
    throw new ToolError(`run_tests may be called at most ${env.maxTestRuns} times in this attempt, and that many runs are used up`);
  }
  state.testRuns++;
  // The report variables (JUnit, stream report, reward) point at throwaway files in the agent's own
  // TMPDIR: the agent sees the output, the grader runs its own.
  const script = `CRUCIBLE_JUNIT="\${TMPDIR:-/tmp}/crucible-agent-junit.xml"; CRUCIBLE_REPORT="\${TMPDIR:-/tmp}/crucible-agent-report"; CRUCIBLE_REWARD_DIR="\${TMPDIR:-/tmp}/crucible-agent-reward"; CRUCIBLE_REWARD="$CRUCIBLE_REWARD_DIR/reward.txt"; mkdir -p "$CRUCIBLE_REWARD_DIR"; export CRUCIBLE_JUNIT CRUCIBLE_REPORT CRUCIBLE_REWARD_DIR CRUCIBLE_REWARD; ${env.testCommand}`;
  const timeoutMs = Math.max(1000, Math.min(env.testTimeoutMs, env.remainingMs()));
  const result = await exec(env, ['sh', '-c', script], { timeoutMs, maxOutputBytes: 1024 * 1024 });
  const output = maskDurations(`${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`.trim());
  const status = result.timedOut ? `tests timed out after ${Math.round(timeoutMs / 1000)}s` : `tests exited with code ${result.exitCode ?? result.signal}`;
  // Failure lines are kept wherever they are (TAP reports each as it happens, not at the end).
  const shown = cutOutput(output, { maxChars: MAX_OUTPUT_CHARS, hint: 'run the failing tests alone with bash to see all their output' });
  return { ok: true, isTest: true, output: `${shown}\n[${status}]` };
}
