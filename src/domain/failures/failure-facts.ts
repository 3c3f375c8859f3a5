import { matcher } from '../evidence/index.js';

/*
 * Deterministic facts about what an agent did in one attempt, read from its trajectory
 * (trajectory.jsonl), its command log (commands.jsonl) and its diff (attempt.json's `diff`).
 * Pure functions over records already parsed: no file access, no model, no heuristics beyond the
 * rules written here. Each rule's exact definition is in docs/failure-patterns.md; a change to a
 * rule changes that page.
 */

/** One trajectory line, as far as these rules read it (the built-in agent's format, which external agents' trajectories share). */
export interface FactTrajectoryEvent {
  type?: unknown;
  t?: unknown;
  turn?: unknown;
  name?: unknown;
  input?: unknown;
  ok?: unknown;
  output?: unknown;
  turns?: unknown;
  stopReason?: unknown;
  /** A `turn` line's calls. */
  toolCalls?: unknown;
  id?: unknown;
}

/** One commands.jsonl line, as far as these rules read it. */
export interface FactCommand {
  argv: readonly string[];
  exitCode: number | null;
  timedOut?: boolean;
  at?: string;
}

export interface FailureFactsInput {
  trajectory: readonly FactTrajectoryEvent[];
  commands: readonly FactCommand[];
  /** Paths the final diff changes (attempt.json `diff.files[].path`, and `oldPath` of renames). */
  changedFiles: readonly string[];
  /** The task's test command (attempt.json `tests.command`, or the task's `tests.command`). */
  testCommand?: string;
  /** The task's fail-to-pass test ids. */
  failToPass: readonly string[];
  /** The task's policy.allowed_paths; empty when it has none. */
  allowedPaths: readonly string[];
  /** The task's tests.test_paths globs, read when allowedPaths is empty; TEST_PATH when these are empty too. */
  testPaths?: readonly string[];
  /** attempt.json `agentResult.stopReason`; absent when the agent never ran. */
  stopReason?: string;
  /** attempt.json `agentResult.turns`, used when the trajectory has no `end` line. */
  turns?: number;
}

export type StopKind = 'own' | 'limit' | 'error' | 'unknown';

export interface FailureFacts {
  /** Rule `ran_tests`: the first test run, by 1-based turn of the trajectory and 0-based index in commands.jsonl. */
  tests: { ran: boolean; firstTurn: number | null; firstCommand: number | null };
  /** Rule `saw_failing_output`: a tool result contains a fail-to-pass id or its name; null when the task names none. */
  sawFailingOutput: boolean | null;
  /** Rule `repeats`: exact repeats (occurrences beyond the first) and the most times one was issued. */
  repeats: { commands: number; edits: number; maxSameCommand: number; maxSameEdit: number };
  /** Rule `outside_changes`: changed files outside the task's reach, sorted. */
  outsideChanges: string[];
  /** Rule `tool_errors`: tool results marked not ok, and logged commands with a non-zero or missing exit code. */
  toolErrors: { tools: number; commands: number };
  /** Rule `after_last_change`: turns and ms after the last edit whose file is in the final diff; null without such an edit. */
  afterLastChange: { turns: number; ms: number | null } | null;
  /** Rule `stop`: whether the agent stopped on its own, at a limit, or on an error. */
  stop: { kind: StopKind; reason: string | null };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Tool names (compared in lower case: Claude Code's `Bash`) of the built-in agent and of the external agents whose call runs a shell command. */
const SHELL_TOOLS = new Set(['bash', 'shell', 'run_shell_command', 'exec_command', 'local_shell', 'command_execution', 'execute', 'run_command']);
/** Tool names that edit or write a file. */
const EDIT_TOOLS = new Set([
  'write_file',
  'edit_file',
  'str_replace',
  'apply_patch',
  'edit',
  'write',
  'multiedit',
  'replace',
  'create_file',
  'file_change',
  'patch',
]);
/** The built-in agent's own test tool. */
const TEST_TOOL = 'run_tests';

/** Common test runners, matched as words in a command line. */
export const TEST_RUNNER =
  /(?:^|[\s;&|(])(?:pytest|py\.test|vitest|jest|mocha|ava|tap|tox|nox|phpunit|rspec|(?:python3?|uv run|poetry run) -m (?:pytest|unittest)|node --test|go test|cargo (?:test|nextest)|(?:npm|pnpm|yarn|bun) (?:run )?test|npx (?:vitest|jest|mocha)|make (?:test|check)|mvn test|gradle test|dotnet test)(?=$|[\s;&|)])/;

/** Stop reasons that mean the agent ended by itself. */
const OWN_STOPS = new Set(['submitted', 'end_turn', 'completed']);
/** Stop reasons that mean a limit ended it. */
const LIMIT_STOPS = new Set(['max_turns', 'budget_exceeded', 'timeout', 'context_exceeded', 'resource_exceeded']);

/** A logged command as the line it ran: `sh -c X` and `bash -lc X` are X, anything else its argv joined by spaces. */
export function commandLine(argv: readonly string[]): string {
  const shell = argv[0] !== undefined && /(?:^|\/)(?:ba|z|da)?sh$/.test(argv[0]);
  if (shell && argv.length >= 3 && /^-[a-z]*c$/.test(argv[1] ?? '')) return argv.slice(2).join(' ');
  return argv.join(' ');
}

/** The command line a shell-type tool call carries (its `command`/`cmd` field, or its input when a string). */
function toolCommand(input: unknown): string | null {
  if (typeof input === 'string') return input;
  if (typeof input !== 'object' || input === null) return null;
  const o = input as Record<string, unknown>;
  const c = o['command'] ?? o['cmd'];
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) return commandLine(c as string[]);
  return null;
}

/** Rule `ran_tests`: a line is a test run when it contains the task's test command or names a common runner. */
export function isTestCommand(line: string, testCommand?: string): boolean {
  const trimmed = testCommand?.trim();
  if (trimmed && line.includes(trimmed)) return true;
  return TEST_RUNNER.test(line);
}

const toolEvents = (trajectory: readonly FactTrajectoryEvent[]) => trajectory.filter((e) => e.type === 'tool');

/**
 * Every tool call: each `tool` line, and each call of a `turn` line that no `tool` line answers by
 * id (an external agent whose output reports no tool results: its calls are known only from the
 * gateway's turns), as a line with the turn's number and time and no output.
 */
export function toolCalls(trajectory: readonly FactTrajectoryEvent[]): FactTrajectoryEvent[] {
  const answered = new Set(toolEvents(trajectory).flatMap((e) => (typeof e.id === 'string' && e.id !== '' ? [e.id] : [])));
  return trajectory.flatMap((e) => {
    if (e.type === 'tool') return [e];
    if (e.type !== 'turn' || !Array.isArray(e.toolCalls)) return [];
    return (e.toolCalls as unknown[]).flatMap((c) => {
      if (typeof c !== 'object' || c === null) return [];
      const call = c as { id?: unknown; name?: unknown; input?: unknown };
      if (typeof call.id === 'string' && answered.has(call.id)) return [];
      return [{ type: 'call', turn: e.turn, t: e.t, id: call.id, name: call.name, input: call.input }];
    });
  });
}

export function testRuns(input: Pick<FailureFactsInput, 'trajectory' | 'commands' | 'testCommand'>): FailureFacts['tests'] {
  let firstTurn: number | null = null;
  for (const e of toolCalls(input.trajectory)) {
    const name = str(e.name);
    const line = name !== null && SHELL_TOOLS.has(name.toLowerCase()) ? toolCommand(e.input) : null;
    if (name === TEST_TOOL || (line !== null && isTestCommand(line, input.testCommand))) {
      firstTurn = num(e.turn);
      break;
    }
  }
  const index = input.commands.findIndex((c) => isTestCommand(commandLine(c.argv), input.testCommand));
  const firstCommand = index >= 0 ? index : null;
  return { ran: firstTurn !== null || firstCommand !== null, firstTurn, firstCommand };
}

/**
 * The names a test id is known by in a runner's output: the id itself, and its last segment after
 * `::`, `#`, `>`, `/` or a space or dot (pytest's `test_even`, JUnit's method name), when that segment is at least
 * 4 characters (shorter names match ordinary words).
 */
export function testNames(id: string): string[] {
  const names = new Set([id]);
  const last = id
    .split(/::|#|>|\/|\s|\./)
    .filter((s) => s.length > 0)
    .pop();
  if (last !== undefined && last.trim().length >= 4) names.add(last.trim());
  return [...names];
}

export function sawFailingOutput(trajectory: readonly FactTrajectoryEvent[], failToPass: readonly string[]): boolean | null {
  if (failToPass.length === 0) return null;
  const names = failToPass.flatMap(testNames);
  return toolEvents(trajectory).some((e) => {
    const out = str(e.output);
    return out !== null && names.some((n) => out.includes(n));
  });
}

function repeatCounts(keys: readonly string[]): { repeats: number; max: number } {
  const seen = new Map<string, number>();
  for (const k of keys) seen.set(k, (seen.get(k) ?? 0) + 1);
  const max = Math.max(0, ...seen.values());
  return { repeats: keys.length - seen.size, max };
}

const isEdit = (e: FactTrajectoryEvent): boolean => {
  const name = str(e.name);
  return name !== null && EDIT_TOOLS.has(name.toLowerCase());
};

export function repeats(input: Pick<FailureFactsInput, 'trajectory' | 'commands'>): FailureFacts['repeats'] {
  const commands = repeatCounts(input.commands.map((c) => JSON.stringify(c.argv)));
  // The trajectory keeps long string inputs abbreviated (head and tail), the same way for equal inputs.
  const edits = repeatCounts(
    toolCalls(input.trajectory)
      .filter(isEdit)
      .map((e) => `${String(e.name)}\u0000${JSON.stringify(e.input)}`),
  );
  return { commands: commands.repeats, edits: edits.repeats, maxSameCommand: commands.max, maxSameEdit: edits.max };
}

/** Test-file names: a `test`/`tests`/`__tests__`/`spec` directory, or test_*, *_test, *.test.*, *.spec.* files. */
export const TEST_PATH = /(?:^|\/)(?:tests?|__tests__|specs?)\/|(?:^|\/)test_[^/]*$|_test\.[^/]+$|\.(?:test|spec)\.[^/]+$/;

/** The directory an allowed_paths glob names: everything before its first wildcard segment. */
export function globDirectory(glob: string): string {
  const segments = glob.replace(/^\.\//, '').split('/');
  const fixed: string[] = [];
  for (const s of segments) {
    if (/[*?[{]/.test(s)) break;
    fixed.push(s);
  }
  // A glob with no wildcard names a file: its directory is its parent.
  if (fixed.length === segments.length) fixed.pop();
  return fixed.join('/');
}

export function outsideChanges(changedFiles: readonly string[], allowedPaths: readonly string[], testPaths: readonly string[] = []): string[] {
  const dirs = allowedPaths.map(globDirectory);
  const isTest = testPaths.length > 0 ? matcher(testPaths) : (f: string) => TEST_PATH.test(f);
  const outside = dirs.length > 0 ? changedFiles.filter((f) => !dirs.some((d) => d === '' || f === d || f.startsWith(`${d}/`))) : changedFiles.filter(isTest);
  return [...new Set(outside)].sort();
}

export function toolErrors(input: Pick<FailureFactsInput, 'trajectory' | 'commands'>): FailureFacts['toolErrors'] {
  return {
    tools: toolEvents(input.trajectory).filter((e) => e.ok === false).length,
    commands: input.commands.filter((c) => c.exitCode !== 0).length,
  };
}

/** Paths an edit tool call names (`path`, `file_path`, `filePath`, `file`, `filename`, or the files of a patch's headers). */
const PATCH_HEADER = /^(?:\*\*\* (?:Update|Add) File: |\+\+\+ (?:b\/)?)(.+)$/gm;

export function editPaths(input: unknown): string[] {
  // A freeform tool's raw input (Codex's apply_patch) is the patch itself.
  if (typeof input === 'string') return [...input.matchAll(PATCH_HEADER)].map((m) => (m[1] ?? '').trim());
  if (typeof input !== 'object' || input === null) return [];
  const o = input as Record<string, unknown>;
  const paths: string[] = [];
  for (const k of ['path', 'file_path', 'filePath', 'file', 'filename', 'absolute_path']) {
    const v = o[k];
    if (typeof v === 'string') paths.push(v);
  }
  for (const k of ['patch', 'patchText', 'input', 'diff']) {
    const v = o[k];
    if (typeof v === 'string') for (const m of v.matchAll(PATCH_HEADER)) paths.push((m[1] ?? '').trim());
  }
  return paths;
}

/** A path as the diff names it: relative, without `./`; an absolute path matches a changed file it ends with. */
function inDiff(path: string, changed: readonly string[]): boolean {
  const p = path.replace(/^\.\//, '');
  return changed.some((f) => f === p || p.endsWith(`/${f}`));
}

export function afterLastChange(input: Pick<FailureFactsInput, 'trajectory' | 'changedFiles' | 'turns'>): FailureFacts['afterLastChange'] {
  const tools = toolCalls(input.trajectory);
  let last: FactTrajectoryEvent | undefined;
  for (const e of tools) if (e.ok !== false && isEdit(e) && editPaths(e.input).some((p) => inDiff(p, input.changedFiles))) last = e;
  if (last === undefined) return null;
  const end = input.trajectory.find((e) => e.type === 'end');
  const finalTurn = num(end?.turns) ?? input.turns ?? Math.max(0, ...input.trajectory.map((e) => num(e.turn) ?? 0));
  const lastTurn = num(last.turn) ?? finalTurn;
  const endT = num(end?.t);
  const lastT = num(last.t);
  return { turns: Math.max(0, finalTurn - lastTurn), ms: endT !== null && lastT !== null ? Math.max(0, endT - lastT) : null };
}

export function stopOf(stopReason: string | undefined, trajectory: readonly FactTrajectoryEvent[] = []): FailureFacts['stop'] {
  const reason = stopReason ?? str(trajectory.find((e) => e.type === 'end')?.stopReason);
  if (reason === null || reason === undefined) return { kind: 'unknown', reason: null };
  const kind: StopKind = OWN_STOPS.has(reason) ? 'own' : LIMIT_STOPS.has(reason) ? 'limit' : 'error';
  return { kind, reason };
}

export function failureFacts(input: FailureFactsInput): FailureFacts {
  return {
    tests: testRuns(input),
    sawFailingOutput: sawFailingOutput(input.trajectory, input.failToPass),
    repeats: repeats(input),
    outsideChanges: outsideChanges(input.changedFiles, input.allowedPaths, input.testPaths),
    toolErrors: toolErrors(input),
    afterLastChange: afterLastChange(input),
    stop: stopOf(input.stopReason, input.trajectory),
  };
}
