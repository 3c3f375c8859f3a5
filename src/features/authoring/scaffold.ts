/**
 * `crucible task new --from-commits A..B`: a task from a fix in a git history.
 *
 * - the starting point is A's tree with B's test files (starting-point.ts), written as
 *   `repos/<id>/` next to the task set: the task's `repo: { path }`;
 * - the oracle is the rest of the diff A..B, written as `oracle/<id>.patch`;
 * - the instruction is a stub drafted from the range's commit messages, marked TODO;
 * - fail_to_pass / pass_to_pass come from running the tests on both sides (the engine's
 *   runTaskTests and suggestTestIds, as `crucible tests --suggest`), through a scratch copy of the
 *   task set so the file's `defaults:` apply exactly as they will in a run;
 * - the task is spliced into the task set (taskset-edit.ts), the file created when missing.
 *
 * Nothing is left behind on failure: files are built under staging names and moved into place only
 * once the tests have said what the task is.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { DEFAULT_TEST_PATHS, loadTaskSet } from '../../domain/config/index.js';
import { runTaskTests, suggestTestIds, type TaskTestSide, type TestIdSuggestion } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { changedPaths, commitMessages, diffOf, gitDirOf, resolveRange, type CommitRange } from './commits.js';
import { neededTestPaths, SCAFFOLD_TEST_PATHS, splitPaths, type PathSplit } from './split.js';
import { writeStartingPoint } from './starting-point.js';
import { addTask, type TaskYaml } from './taskset-edit.js';

export interface ScaffoldRequest {
  /** The task-set file to add the task to (created when missing). */
  taskSet: string;
  id: string;
  /** A directory inside the git repository whose commits make the task. */
  repo: string;
  /** `A..B`: A has the bug, B the fix and its tests. */
  fromCommits: string;
  /** Globs of the test files (default: SCAFFOLD_TEST_PATHS, or the task set's defaults.tests.test_paths). */
  testPaths?: string[];
  /** Default: the task set's defaults.tests.command. */
  testCommand?: string;
  junit?: string;
  setup?: string[];
  /** Replace a task with the same id, and its repo copy and oracle patch. */
  force?: boolean;
}

export interface ScaffoldOptions {
  stateDir: string;
  sandbox: SandboxKind;
  signal?: AbortSignal;
  onProgress?: (step: string) => void;
  /** The output tail of a test run that gave no usable report, before the error is thrown. */
  onRunOutput?: (tail: string) => void;
}

export interface ScaffoldResult {
  /** Absolute path of the task-set file. */
  file: string;
  created: boolean;
  replaced: boolean;
  /** How the file was edited (taskset-edit.ts). */
  how: 'splice' | 'document';
  /** Paths written, relative to the task set's directory. */
  repoDir: string;
  oraclePatch: string;
  range: CommitRange;
  split: PathSplit;
  suggestion: TestIdSuggestion;
  passToPass: 'all_others' | string[];
  runs: TaskTestSide[];
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const PLACEHOLDER_ID = '(discovered by task new)';

/** The checks that need no git and no file: one line naming the flag and the fix. */
export function checkRequest(request: Partial<ScaffoldRequest>): void {
  if (!request.id) throw new InputError('--id: missing (fix: name the task, e.g. --id fix-median; letters, digits, ".", "_" and "-")');
  if (!ID_PATTERN.test(request.id)) {
    throw new InputError(`--id ${request.id}: not a task id (fix: use letters, digits, ".", "_" and "-", starting with a letter or digit)`);
  }
  if (!request.repo) throw new InputError('--repo: missing (fix: point --repo at the git checkout whose commits make the task, e.g. --repo .)');
  if (!request.fromCommits)
    throw new InputError('--from-commits: missing (fix: give the range from the buggy commit to the fixed one, e.g. --from-commits HEAD~2..HEAD)');
}

interface ExistingSet {
  text: string | undefined;
  defaultCommand: string | undefined;
  defaultTestPaths: string[] | undefined;
  index: number | undefined;
}

/** The task set's `defaults.tests.command`, when it exists and has one: `--test-command` is then optional. */
export async function defaultTestCommand(taskSet: string): Promise<string | undefined> {
  return existsSync(taskSet) ? (await readExisting(resolve(taskSet), '')).defaultCommand : undefined;
}

/** The task set as it is: validated when it exists, its defaults, and where the id already is. */
async function readExisting(file: string, id: string): Promise<ExistingSet> {
  if (!existsSync(file)) return { text: undefined, defaultCommand: undefined, defaultTestPaths: undefined, index: undefined };
  const loaded = loadTaskSet(file);
  const text = await readFile(file, 'utf8');
  const raw = parseDocument(text).toJS() as { defaults?: { tests?: { command?: unknown; test_paths?: unknown } } };
  const tests = raw.defaults?.tests;
  const index = loaded.tasks.findIndex((t) => t.id === id);
  return {
    text,
    defaultCommand: typeof tests?.command === 'string' ? tests.command : undefined,
    defaultTestPaths: Array.isArray(tests?.test_paths) ? (tests.test_paths as string[]) : undefined,
    index: index < 0 ? undefined : index,
  };
}

export async function scaffoldTask(request: ScaffoldRequest, options: ScaffoldOptions): Promise<ScaffoldResult> {
  checkRequest(request);
  const say = options.onProgress ?? ((): void => undefined);
  const file = resolve(request.taskSet);
  const dir = dirname(file);
  const existing = await readExisting(file, request.id);
  if (existing.index !== undefined && !request.force) {
    throw new InputError(
      `--id ${request.id}: ${request.taskSet} already has a task with this id (tasks[${existing.index}]) (fix: choose another --id, or pass --force to replace it)`,
    );
  }
  const testCommand = request.testCommand ?? existing.defaultCommand;
  if (testCommand === undefined) {
    throw new InputError(
      `--test-command: missing, and ${request.taskSet} has no defaults.tests.command (fix: give the command that runs the tests and writes JUnit XML to $CRUCIBLE_JUNIT, e.g. --test-command 'python3 -m pytest --junitxml="$CRUCIBLE_JUNIT"')`,
    );
  }
  const repoDir = `repos/${request.id}`;
  const oraclePatch = `oracle/${request.id}.patch`;
  for (const path of [repoDir, oraclePatch]) {
    if (existsSync(join(dir, path)) && !request.force) {
      throw new InputError(
        `--id ${request.id}: ${join(dirname(request.taskSet), path)} already exists (fix: choose another --id, or pass --force to replace it)`,
      );
    }
  }

  const range = await resolveRange(await gitDirOf(request.repo), request.fromCommits);
  const globs = request.testPaths ?? existing.defaultTestPaths ?? SCAFFOLD_TEST_PATHS;
  const split = splitPaths(await changedPaths(range), globs);
  checkSplit(range, split, request.testPaths !== undefined);
  const effective = request.testPaths ?? existing.defaultTestPaths ?? DEFAULT_TEST_PATHS;
  const testPathsField = request.testPaths ?? neededTestPaths(split, effective);

  const stage = `.${request.id}.new-${process.pid}`;
  const staged = { repo: `repos/${stage}`, patch: `oracle/${stage}.patch`, taskSet: join(dir, `.${basename(file)}.new-${process.pid}.yaml`) };
  const base = {
    id: request.id,
    instruction: await instructionStub(range),
    ...(request.setup?.length ? { setup: request.setup } : {}),
  };
  const tests = (failToPass: string[], passToPass: 'all_others' | string[]): TaskYaml => ({
    command: testCommand,
    ...(request.junit !== undefined ? { junit: request.junit } : {}),
    fail_to_pass: failToPass,
    pass_to_pass: passToPass,
    ...(testPathsField !== undefined ? { test_paths: testPathsField } : {}),
  });
  const task = (repo: string, patch: string, t: TaskYaml): TaskYaml => ({
    id: base.id,
    repo: { path: repo },
    instruction: base.instruction,
    ...(base.setup ? { setup: base.setup } : {}),
    tests: t,
    oracle: { patch },
  });

  try {
    say(
      `writing the starting point: ${range.from.slice(0, 12)} with ${split.tests.length} test file${split.tests.length === 1 ? '' : 's'} from ${range.to.slice(0, 12)}`,
    );
    await mkdir(join(dir, 'oracle'), { recursive: true });
    await writeStartingPoint(range, split.tests, join(dir, staged.repo));
    await writeFile(join(dir, staged.patch), await diffOf(range, split.source));
    // A scratch copy of the task set with the new task, so its defaults apply as in a run.
    const scratch = addTask(existing.text, task(staged.repo, staged.patch, tests([PLACEHOLDER_ID], 'all_others')), { replace: existing.index });
    await writeFile(staged.taskSet, scratch.text);
    const loaded = loadTaskSet(staged.taskSet).tasks.find((t) => t.id === request.id);
    if (loaded === undefined) throw new Error(`task ${request.id} missing from the scratch task set`);
    const runs = await runTaskTests(loaded, {
      stateDir: options.stateDir,
      sandbox: options.sandbox,
      sides: ['baseline', 'oracle'],
      where: { file: request.taskSet, prefix: `tasks[id=${request.id}]` },
      ...(options.signal ? { signal: options.signal } : {}),
      onProgress: say,
    });
    for (const run of runs) checkRun(run, options);
    const suggestion = suggestTestIds(runs[0]?.tests ?? [], runs[1]?.tests ?? []);
    if (suggestion.failToPass.length === 0) {
      const ran = runs[0]?.tests.length ?? 0;
      throw new InputError(
        `--from-commits ${range.text}: no test fails before the fix and passes with it (${ran} test id${ran === 1 ? '' : 's'} ran; test files: ${split.tests.join(', ')}) (fix: check that the range's new tests are among the test files (--test-paths) and that --test-command runs them)`,
      );
    }
    const passToPass = suggestion.allOthersAgrees ? 'all_others' : suggestion.passToPass;
    const final = addTask(existing.text, task(repoDir, oraclePatch, tests(suggestion.failToPass, passToPass)), {
      replace: existing.index,
      comment: `scaffolded by crucible task new from ${range.text} (${range.from.slice(0, 12)}..${range.to.slice(0, 12)})`,
      fieldComments: { instruction: 'TODO: drafted from the commit messages; rewrite it as the problem an agent should solve' },
      flow: ['repo', 'oracle'],
    });
    await moveInto(join(dir, staged.repo), join(dir, repoDir));
    await moveInto(join(dir, staged.patch), join(dir, oraclePatch));
    const temp = `${file}.new-${process.pid}`;
    await writeFile(temp, final.text);
    await rename(temp, file);
    return {
      file,
      created: existing.text === undefined,
      replaced: existing.index !== undefined,
      how: final.how,
      repoDir,
      oraclePatch,
      range,
      split,
      suggestion,
      passToPass,
      runs,
    };
  } finally {
    await rm(join(dir, staged.repo), { recursive: true, force: true });
    await rm(join(dir, staged.patch), { force: true });
    await rm(staged.taskSet, { force: true });
    // The directories a failed scaffold made, and only when nothing else is in them.
    for (const sub of ['repos', 'oracle']) await rmdir(join(dir, sub)).catch(() => undefined);
  }
}

/** A range whose changes are all tests, or all source, cannot make a task: say which, and what to do. */
function checkSplit(range: CommitRange, split: PathSplit, globsGiven: boolean): void {
  if (split.tests.length === 0 && split.source.length === 0) {
    throw new InputError(`--from-commits ${range.text}: the two commits have the same files (fix: give A..B where A has the bug and B the fix and its tests)`);
  }
  if (split.tests.length === 0) {
    const list = split.source.slice(0, 3).join(', ') + (split.source.length > 3 ? ', …' : '');
    throw new InputError(
      `--from-commits ${range.text}: changes no test files, only ${list} (fix: widen the range to include the commit that adds the tests, or ${globsGiven ? 'correct' : 'pass'} --test-paths GLOB to say which files are tests)`,
    );
  }
  if (split.source.length === 0) {
    const list = split.tests.slice(0, 3).join(', ') + (split.tests.length > 3 ? ', …' : '');
    throw new InputError(
      `--from-commits ${range.text}: changes only test files (${list}), so there is no fix to make the oracle (fix: widen the range to include the fix commit, A being its parent, or narrow --test-paths if a source file was taken for a test)`,
    );
  }
}

/** A test run that proves nothing stops the scaffold: its output, then the error naming the flag. */
function checkRun(run: TaskTestSide, options: ScaffoldOptions): void {
  const reason = run.evidence.invalidReason;
  if (reason === undefined) return;
  const tail = run.evidence.outputTail.trimEnd().split('\n').slice(-20).join('\n');
  if (tail) options.onRunOutput?.(tail);
  const side = run.at === 'baseline' ? 'before the fix' : 'with the fix';
  throw new InputError(
    `--test-command: the tests ${side} give no usable report (${reason}) (fix: run the command in the repository and check it writes JUnit XML to $CRUCIBLE_JUNIT, or pass --junit PATH)`,
  );
}

/** Moves a staged file or directory to its final name, replacing what is there (only with --force). */
async function moveInto(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await rm(to, { recursive: true, force: true });
  await rename(from, to);
}

async function instructionStub(range: CommitRange): Promise<string> {
  const messages = await commitMessages(range);
  const head =
    'TODO (task author): rewrite this as the problem an agent should solve (what is wrong and how it shows, not how to fix it).\n' +
    'Drafted from the commit messages of the range:';
  return `${[head, ...messages].join('\n\n')}\n`;
}
