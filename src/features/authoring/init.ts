import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { DEFAULT_TEST_PATHS } from '../../domain/config/index.js';
import { InputError } from '../../core/errors.js';
import { globToRegExp } from '../../domain/evidence/index.js';
import { detectRunner, type DetectedRunner, type InitFormat } from './init-detect.js';

export const INIT_TASKS_FILE = 'crucible.tasks.yaml';
export const INIT_CI_FILE = 'crucible.ci.yaml';
export const INIT_ORACLE_FILE = 'crucible.oracle.patch';
/** The fail_to_pass entry the user replaces with a real id; `validate` names it as unknown until then. */
export const INIT_PLACEHOLDER_ID = 'TODO: a test id from the list crucible init printed';

export interface InitOptions {
  /** `--test-command`: instead of the detected runner's (it must write JUnit to $CRUCIBLE_JUNIT). */
  testCommand?: string;
}

export interface InitResult {
  taskId: string;
  runner: DetectedRunner;
  /** The commit the task starts from. */
  head: string;
  /** The task-set file written (absolute). */
  tasksFile: string;
  /** Absolute paths of the files written. */
  files: string[];
  /** Set when the uncommitted change became the oracle patch. */
  oracle?: string;
  /** Changed test files left out of the oracle: they must be committed for the baseline to have them. */
  testChanges: string[];
}

/**
 * `crucible init` in a repository: a task set of one task on the repository's HEAD (so uncommitted
 * work never leaks into the baseline), with the detected test command, and a crucible.ci.yaml.
 * An uncommitted change to non-test files becomes the task's oracle patch. Never overwrites.
 */
export function initRepo(dir: string, options: InitOptions = {}): InitResult {
  const root = resolve(dir);
  const git = (args: string[], env: Record<string, string> = {}): string =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let head: string;
  try {
    head = git(['rev-parse', '--verify', 'HEAD^{commit}']).trim();
  } catch {
    throw new InputError(`${root}: not a git repository with a commit (fix: git init && git add -A && git commit -m base, then run crucible init again)`);
  }
  const targets = [INIT_TASKS_FILE, INIT_CI_FILE, INIT_ORACLE_FILE].map((f) => join(root, f));
  for (const file of targets) {
    // lstat: a symlink there, even one pointing nowhere, is something init would write through.
    if (lstatSync(file, { throwIfNoEntry: false }) !== undefined)
      throw new InputError(`${file}: already exists, and crucible init never overwrites (fix: edit it, or move it away and run crucible init again)`);
  }
  const detected = detectRunner(root);
  if (!detected && options.testCommand === undefined)
    throw new InputError(
      `${root}: no test runner found (no package.json test script, pytest files, go.mod or Cargo.toml) (fix: pass --test-command '<command that writes JUnit to "$CRUCIBLE_JUNIT">')`,
    );
  const runner: DetectedRunner =
    options.testCommand !== undefined
      ? { runner: detected?.runner ?? 'npm-script', evidence: '--test-command', command: options.testCommand, setup: detected?.setup ?? [] }
      : (detected as DetectedRunner);

  const { patch, testChanges } = uncommittedChange(root, git);
  const taskId = slug(basename(root));
  const files: string[] = [];
  const write = (name: string, text: string): void => {
    const file = join(root, name);
    writeFileSync(file, text, { flag: 'wx' });
    files.push(file);
  };
  if (patch !== undefined) write(INIT_ORACLE_FILE, patch);
  write(INIT_TASKS_FILE, taskSetText(taskId, head, runner, patch !== undefined, testChanges));
  write(INIT_CI_FILE, ciText(runner));
  return {
    taskId,
    runner,
    head,
    tasksFile: join(root, INIT_TASKS_FILE),
    files,
    ...(patch !== undefined ? { oracle: join(root, INIT_ORACLE_FILE) } : {}),
    testChanges,
  };
}

/**
 * Rewrites the task set init has just written so its tests read `format` (the one the run's own
 * output showed). Only init's own fresh file is rewritten; the result says the runner it now has.
 */
export function rewriteInitFormat(result: InitResult, format: InitFormat, evidence: string): InitResult {
  const runner: DetectedRunner = { ...result.runner, format, evidence: `${result.runner.evidence}; its output is ${evidence}` };
  delete runner.note;
  writeFileSync(result.tasksFile, taskSetText(result.taskId, result.head, runner, result.oracle !== undefined, result.testChanges));
  return { ...result, runner };
}

/** The uncommitted change of non-test files (untracked ones included) as a patch against HEAD, and the changed test files. */
function uncommittedChange(root: string, git: (args: string[], env?: Record<string, string>) => string): { patch?: string; testChanges: string[] } {
  const changed = git(['status', '--porcelain', '-z', '--untracked-files=all'])
    .split('\0')
    .filter((e) => e.length > 3)
    .map((e) => e.slice(3))
    // Crucible's own state and installed dependencies (when not ignored) are never part of a fix.
    .filter((p) => ![INIT_TASKS_FILE, INIT_CI_FILE, INIT_ORACLE_FILE].includes(p) && !/^(\.crucible|node_modules)\//.test(p));
  const testPath = DEFAULT_TEST_PATHS.map((g) => globToRegExp(g));
  const isTest = (p: string): boolean => testPath.some((r) => r.test(p));
  const source = changed.filter((p) => !isTest(p));
  const testChanges = changed.filter(isTest);
  if (source.length === 0) return { testChanges };
  // A throwaway index, so the user's own staging area is never touched.
  const scratch = mkdtempSync(join(tmpdir(), 'crucible-init-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    git(['read-tree', 'HEAD'], env);
    git(['add', '-A', '--', ...source], env);
    const patch = git(['diff', '--cached', '--binary', 'HEAD'], env);
    return patch.trim() === '' ? { testChanges } : { patch, testChanges };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function taskSetText(taskId: string, head: string, runner: DetectedRunner, oracle: boolean, testChanges: string[]): string {
  const q = (s: string): string => JSON.stringify(s);
  return [
    '# Crucible task set for this repository (docs/tasks.md). One task to start from: describe the bug,',
    '# name the test(s) that prove the fix in fail_to_pass, then `crucible validate crucible.tasks.yaml`.',
    '# More tasks from fixes in the history: `crucible task new crucible.tasks.yaml --repo . --from-commits A..B`.',
    'tasks:',
    `  - id: ${taskId}`,
    '    # Every attempt starts from this commit of this repository (uncommitted work is never part of it).',
    `    repo: { git: ., commit: ${head} }`,
    '    instruction: |',
    '      TODO: what is wrong and what "fixed" means, as you would tell a colleague.',
    ...(runner.setup.length > 0 ? ['    # Runs once per task, with network, before the baseline.', `    setup: [${runner.setup.map(q).join(', ')}]`] : []),
    '    tests:',
    `      # Found by ${runner.evidence}. It runs in the sandbox without network${runner.format ? '' : ' and writes JUnit to $CRUCIBLE_JUNIT'}.`,
    ...(runner.note ? [`      # TODO: ${runner.note}.`] : []),
    `      command: ${q(runner.command)}`,
    ...(runner.format ? [`      format: ${runner.format}`] : []),
    '      # Tests that fail before the fix and pass after it, exactly as `crucible tests` lists them.',
    `      fail_to_pass: [${q(INIT_PLACEHOLDER_ID)}]`,
    '      # Every other test must keep passing (or list them).',
    '      pass_to_pass: all_others',
    ...(oracle
      ? [
          `    # The uncommitted change crucible init found${testChanges.length > 0 ? ` (test files left out: ${testChanges.join(', ')}; commit them so the baseline has them)` : ''}.`,
          `    oracle: { patch: ${INIT_ORACLE_FILE} }`,
        ]
      : ['    # A known-good fix lets `crucible validate` prove the task: oracle: { patch: fix.patch }']),
    '',
  ].join('\n');
}

/**
 * Written out although `crucible ci` applies the same detectors when policy.secrets.presets is
 * absent: the file says what guards the repository, and an edit that drops it is a visible diff.
 */
const CI_POLICY_LINES = [
  'policy:',
  '  # Every secret detector (cloud keys, private keys, tokens) over the lines a change adds; published',
  '  # examples (AKIAIOSFODNN7EXAMPLE) and placeholders (AKIAXXXXXXXXXXXXXXXX) stay quiet. `presets: []` turns them off.',
  '  secrets: { presets: [all] }',
];

function ciText(runner: DetectedRunner): string {
  const junit = runner.format === undefined;
  return [
    '# `crucible ci` settings (docs/ci.md): grade the change in this checkout (working tree or --base/--head)',
    '# with the tests, the test-tampering guard and the policy checks.',
    ...(runner.setup.length > 0 ? [`setup: [${runner.setup.map((s) => JSON.stringify(s)).join(', ')}]`] : []),
    'tests:',
    ...(junit
      ? [`  command: ${JSON.stringify(runner.command)}`]
      : [
          `  # TODO: crucible ci reads JUnit only: a command that writes it to $CRUCIBLE_JUNIT (docs/tasks.md#the-id-of-each-report-format).`,
          `  command: ${JSON.stringify(ciJunitCommand(runner))}`,
        ]),
    '  # fail_to_pass: [ids that must pass at head]',
    '  pass_to_pass: all_others',
    ...CI_POLICY_LINES,
    '',
  ].join('\n');
}

/** A JUnit-writing command for crucible ci, which reads JUnit only, from a runner that prints a stream. */
function ciJunitCommand(runner: DetectedRunner): string {
  switch (runner.format) {
    case 'go-json':
      return 'go test -v ./... 2>&1 | go-junit-report -set-exit-code > "$CRUCIBLE_JUNIT"';
    case 'cargo-json':
      return `${runner.command} | cargo2junit > "$CRUCIBLE_JUNIT"`;
    case 'pytest':
      return 'python3 -m pytest -q --junitxml="$CRUCIBLE_JUNIT"';
    default:
      return `${runner.command} | npx tap-junit > "$CRUCIBLE_JUNIT"`;
  }
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '') || 'task'
  );
}
