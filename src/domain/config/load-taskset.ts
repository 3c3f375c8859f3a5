import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { ConfigError, InputError } from '../../core/errors.js';
import {
  REWARD_TEST_ID,
  type HeldOutValuesSpec,
  type OracleSpec,
  type PolicySpec,
  type RepoSource,
  type ResourceLimits,
  type RewardSpec,
  type Task,
  type TaskEnvironment,
  type TestFormat,
  type TestReportSource,
} from '../../core/types/index.js';
import { toMs } from './duration.js';
import { REPORTER_NAMES_IN_CONFIG, SIZE_PATTERN, taskSchema, taskSetSchema, type DefaultsParsed, type TaskParsed } from './schema.js';
import { issueToError, formatFieldPath, YamlSource, type FieldPath } from '../../core/input/index.js';
import { parseProfiles, type LoadedProfile } from '../agents/index.js';
import { npmPackageRef, resolveNpmFields } from './npm-fields.js';

export interface TaskSet {
  /** Absolute path of the file. */
  file: string;
  tasks: Task[];
  /** The profiles of its `agents:` section, validated (names a reference agent may own are checked when merged). */
  agents?: LoadedProfile[];
  /** The `reporters` the file asks for; undefined means the defaults. */
  reporters?: Array<(typeof REPORTER_NAMES_IN_CONFIG)[number]>;
}

export const DEFAULT_LIMITS = { agentTimeoutMs: 20 * 60_000, testTimeoutMs: 5 * 60_000, setupTimeoutMs: 10 * 60_000 };

const MIB = 1024 * 1024;
export const DEFAULT_RESOURCE_LIMITS: ResourceLimits = {
  pids: 1024,
  memoryBytes: 4096 * MIB,
  fileSizeBytes: 1024 * MIB,
  workspaceBytes: 4096 * MIB,
  workspaceFiles: 300_000,
  changeFiles: 10_000,
  changeBytes: 64 * MIB,
};

/**
 * Files that define the tests: changing one is tampering, like editing a test (docs/grading.md).
 * Covers the usual layouts of pytest/unittest (incl. Django's tests.py), node:test, jest/vitest
 * (incl. snapshots and manual mocks), mocha/jasmine specs, go and ruby. Files that configure a test
 * runner (conftest.py, pytest.ini, vitest/jest config, package.json's test script…) are guarded
 * in addition, whatever this list says (src/domain/evidence/test-config.ts).
 */
export const DEFAULT_TEST_PATHS = [
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/__mocks__/**',
  '**/__snapshots__/**',
  '**/spec/**',
  '**/testdata/**',
  '**/*.test.*',
  '**/*.spec.*',
  '**/*.snap',
  '**/test_*.py',
  '**/*_test.py',
  '**/tests.py',
  '**/conftest.py',
  '**/*_test.go',
  '**/*_spec.rb',
  '**/*_test.rb',
];

/** Loads, validates and resolves a task-set file. Every problem is a ConfigError naming file:line and field. */
export function loadTaskSet(path: string): TaskSet {
  const file = resolve(path);
  if (!existsSync(file)) throw new InputError(`${path}: no such task-set file (fix: check the path)`);
  if (statSync(file).isDirectory()) throw new InputError(`${path}: is a directory, expected a task-set YAML file (fix: pass e.g. ${path}/tasks.yaml)`);
  const source = YamlSource.parse(path, readTaskSetText(path, file));
  const raw = source.toJS();
  checkTopLevel(source, raw);

  const top = taskSetSchema.safeParse(raw);
  if (!top.success) throw issueToError(source, taskSetSchema, top.error.issues, []);

  const defaults = top.data.defaults ?? {};

  const seen = new Map<string, number>();
  const tasks = top.data.tasks.map((rawTask, index) => {
    const at: FieldPath = ['tasks', index];
    const merged = mergeDefaults(defaults, rawTask);
    const parsed = taskSchema.safeParse(merged);
    if (!parsed.success) throw issueToError(source, taskSchema as z.ZodType, parsed.error.issues, at, [['defaults']]);
    const previous = seen.get(parsed.data.id);
    if (previous !== undefined) {
      throw new ConfigError(
        { file: path, ...source.position([...at, 'id']), field: formatFieldPath([...at, 'id']) },
        `duplicate task id "${parsed.data.id}" (also tasks[${previous}])`,
        'give each task a unique id',
      );
    }
    seen.set(parsed.data.id, index);
    return resolveTask(parsed.data, { file, source, at });
  });
  const agents = top.data.agents === undefined ? undefined : parseProfiles(source, top.data.agents, ['agents'], dirname(file));
  return { file, tasks, ...(top.data.reporters === undefined ? {} : { reporters: top.data.reporters }), ...(agents === undefined ? {} : { agents }) };
}

/**
 * Task sets are hand-written: 10 MB is hundreds of thousands of lines. The cap keeps a huge or
 * wrong file (a log, a dump) from costing gigabytes of parse trees before its first error.
 */
export const MAX_TASKSET_BYTES = 10 * 1024 * 1024;

/** The file's text; a file too large, binary or not UTF-8 is an InputError naming where. */
function readTaskSetText(path: string, file: string): string {
  const size = statSync(file).size;
  if (size > MAX_TASKSET_BYTES) {
    throw new InputError(
      `${path}: ${(size / 1024 / 1024).toFixed(1)} MB, over the ${MAX_TASKSET_BYTES / 1024 / 1024} MB limit for a task-set file (fix: split it into several task sets, or point at the right file)`,
    );
  }
  const bytes = readFileSync(file);
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    throw new ConfigError(
      { file: path, ...lineAt(bytes, nul) },
      `binary data (a NUL byte at byte ${nul}); a task set is a YAML text file`,
      'point at the task-set YAML file',
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new ConfigError({ file: path, ...lineAt(bytes, offset) }, `not valid UTF-8 (byte ${offset})`, 'save the file as UTF-8');
  }
}

/** Byte offset of the first byte that does not decode as UTF-8 (the text before it is exact). */
function firstInvalidUtf8(bytes: Buffer): number {
  const text = bytes.toString('utf8');
  const bad = text.indexOf('\uFFFD');
  return bad < 0 ? 0 : Buffer.byteLength(text.slice(0, bad));
}

function lineAt(bytes: Buffer, offset: number): { line: number } {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return { line };
}

/** The file as a whole must be a mapping with `tasks:`; say so plainly rather than as a zod type error. */
function checkTopLevel(source: YamlSource, raw: unknown): asserts raw is Record<string, unknown> {
  const fix = 'start the file with `tasks:` followed by a list of tasks (see examples/tasks.yaml)';
  if (raw === null || raw === undefined) throw new ConfigError({ file: source.file }, 'the file is empty, expected a mapping with a `tasks:` list', fix);
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const got = Array.isArray(raw) ? 'a list' : `a ${typeof raw} (${JSON.stringify(raw).slice(0, 40)})`;
    throw new ConfigError({ file: source.file, ...source.rootPosition() }, `the top level is ${got}, expected a mapping with a \`tasks:\` list`, fix);
  }
}

interface Where {
  file: string;
  source: YamlSource;
  at: FieldPath;
}

function resolveTask(t: TaskParsed, where: Where): Task {
  const dir = dirname(where.file);
  const fail = (field: FieldPath, problem: string, fix: string): never => {
    const full = [...where.at, ...field];
    throw new ConfigError({ file: where.source.file, ...where.source.position(full), field: formatFieldPath(full) }, problem, fix);
  };
  const existingPath = (field: FieldPath, rel: string, kind: 'file' | 'dir'): string => {
    const abs = resolve(dir, rel);
    if (!existsSync(abs)) fail(field, `${kind === 'dir' ? 'directory' : 'file'} not found: ${rel}`, `paths are relative to ${where.source.file}`);
    if ((kind === 'dir') !== statSync(abs).isDirectory())
      fail(field, `${rel} is not a ${kind === 'dir' ? 'directory' : 'file'}`, `point it at a ${kind === 'dir' ? 'directory' : 'file'}`);
    return abs;
  };

  const repo: RepoSource =
    'path' in t.repo
      ? { kind: 'local', path: existingPath(['repo', 'path'], t.repo.path, 'dir') }
      : 'git' in t.repo
        ? { kind: 'git', url: resolveGitUrl(t.repo.git, dir), commit: t.repo.commit }
        : { kind: 'npm', package: npmPackageRef(t.repo.npm, t.repo.integrity, t.repo.registry) };
  const npm = resolveNpmFields(t, repo, fail);

  const instruction = t.instruction ?? readFileSync(existingPath(['instruction_file'], t.instruction_file ?? '', 'file'), 'utf8');

  // Inline text or a file path, told apart by a line break (a path never has one).
  const inlineOrFile = (field: 'patch' | 'script', value: string): string =>
    value.includes('\n') ? value : readFileSync(existingPath(['oracle', field], value, 'file'), 'utf8');
  // An npm oracle (`from_npm`) starts empty: the diff is computed when the workspace is first prepared.
  const oracle: OracleSpec | undefined =
    t.oracle === undefined
      ? undefined
      : 'patch' in t.oracle
        ? { patch: inlineOrFile('patch', t.oracle.patch) }
        : 'script' in t.oracle
          ? { script: inlineOrFile('script', t.oracle.script) }
          : { patch: '', ...(npm.oracle ? { fromNpm: npm.oracle } : {}) };

  // `junit:` names JUnit's file and `report:` says where a stream format is read: each only with its format.
  const reportFields = (
    field: FieldPath,
    spec: { format?: TestFormat; report?: TestReportSource; junit?: string },
  ): { format?: TestFormat; report?: TestReportSource } => {
    const format = spec.format ?? 'junit';
    if (format === 'junit' && spec.report !== undefined) {
      fail(
        [...field, 'report'],
        `report: ${spec.report} is for the stream formats, not junit`,
        'drop report:, or set format: to tap, go-json, cargo-json or pytest',
      );
    }
    if (format !== 'junit' && spec.junit !== undefined) {
      fail(
        [...field, 'junit'],
        `junit: is a JUnit report's path, but format is ${format}`,
        `drop junit:, and set report: file to read the ${format} report from $CRUCIBLE_REPORT`,
      );
    }
    return { ...(spec.format !== undefined ? { format: spec.format } : {}), ...(spec.report !== undefined ? { report: spec.report } : {}) };
  };

  const limits = t.limits ?? {};
  const environment = t.environment === undefined ? undefined : resolveEnvironment(t.environment, existingPath, fail);
  const resources = resolveResourceLimits(limits);
  // The container's memory and pids are the limits its commands meet: one number, not two that disagree.
  if (environment?.memoryBytes !== undefined) resources.memoryBytes = environment.memoryBytes;
  if (environment?.pids !== undefined) resources.pids = environment.pids;
  return {
    id: t.id,
    version: String(t.version ?? '1'),
    sourceFile: where.file,
    repo,
    ...(t.repo_key !== undefined ? { repoKey: t.repo_key } : {}),
    instruction,
    setup: t.setup ?? [],
    tests:
      t.tests.kind === 'reward'
        ? {
            command: rewardCommand(t.tests, fail),
            // One test, the reward: the rest of grading (F2P, validate, preflight) works on it unchanged.
            failToPass: [REWARD_TEST_ID],
            passToPass: [],
            testPaths: DEFAULT_TEST_PATHS,
            reward: rewardSpec(t.tests, existingPath, fail),
          }
        : {
            command: t.tests.command,
            ...reportFields(['tests'], t.tests),
            junit: t.tests.junit,
            failToPass: t.tests.fail_to_pass,
            passToPass: t.tests.pass_to_pass,
            testPaths: [...(t.tests.test_paths ?? DEFAULT_TEST_PATHS), ...npm.testPaths],
          },
    ...(npm.testsFrom ? { testsFrom: npm.testsFrom } : {}),
    heldOut: t.held_out
      ? {
          path: existingPath(['held_out', 'path'], t.held_out.path, 'dir'),
          command: t.held_out.command,
          ...reportFields(['held_out'], t.held_out),
          junit: t.held_out.junit,
          required: t.held_out.required,
        }
      : undefined,
    ...(t.held_out_values ? { heldOutValues: resolveHeldOutValues(t.held_out_values, fail) } : {}),
    oracle,
    policy: resolvePolicy(t.policy),
    limits: {
      agentTimeoutMs: toMs(limits.agent_timeout) ?? DEFAULT_LIMITS.agentTimeoutMs,
      testTimeoutMs: toMs(limits.test_timeout) ?? DEFAULT_LIMITS.testTimeoutMs,
      setupTimeoutMs: toMs(limits.setup_timeout) ?? DEFAULT_LIMITS.setupTimeoutMs,
      resources,
    },
    ...(environment ? { environment } : {}),
    metadata: {
      category: t.metadata?.category,
      difficulty: t.metadata?.difficulty,
      tags: t.metadata?.tags ?? [],
    },
  };
}

/** Python `a.b:f.g`; Node `dir/file.js:name`, relative and inside the root. */
const PYTHON_CALL = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;
const NODE_CALL = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|:))[^:\0]+\.(?:js|mjs|cjs|json):[A-Za-z_$][\w$]*$/;

function resolveHeldOutValues(v: NonNullable<TaskParsed['held_out_values']>, fail: Fail): HeldOutValuesSpec {
  v.calls.forEach((c, i) => {
    if (v.runtime === 'python' && !PYTHON_CALL.test(c.call))
      fail(['held_out_values', 'calls', i, 'call'], `"${c.call}" is not module:function`, 'write it as package.module:function, e.g. stats:median');
    if (v.runtime === 'node' && !NODE_CALL.test(c.call))
      fail(
        ['held_out_values', 'calls', i, 'call'],
        `"${c.call}" is not path/to/module.js:export`,
        'write it as a relative module path and an export name, e.g. src/index.js:slugify',
      );
  });
  const root = v.root ?? '.';
  if (isAbsolute(root) || root.split('/').includes('..'))
    fail(['held_out_values', 'root'], `"${root}" leaves the workspace`, 'give a directory relative to the repository, e.g. src');
  return { runtime: v.runtime, root, required: v.required, calls: v.calls.map((c) => ({ call: c.call, args: c.args, expect: c.expect })) };
}

type ExistingPath = (field: FieldPath, rel: string, kind: 'file' | 'dir') => string;
type Fail = (field: FieldPath, problem: string, fix: string) => never;

interface RewardTestsInput {
  command?: string;
  exec?: string[];
  env?: Record<string, string>;
  files?: string;
  mount?: string;
  network?: 'none' | 'host';
}

/** The verifier's command as shown in evidence: `command`, or `exec` written as the shell would read it. */
function rewardCommand(t: RewardTestsInput, fail: Fail): string {
  if (t.command !== undefined && t.exec !== undefined)
    fail(['tests', 'exec'], 'exec: given with command', 'keep one: exec runs a program directly, command runs shell text');
  if (t.exec !== undefined) return t.exec.map(shellWord).join(' ');
  if (t.command === undefined) return fail(['tests', 'command'], 'command: missing', 'add command: (shell text) or exec: [program, args…]');
  return t.command;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `tests.kind: reward`: its files (checked), where they are mounted, the verifier's network, program and environment. */
function rewardSpec(t: RewardTestsInput, existingPath: ExistingPath, fail: Fail): RewardSpec {
  if (t.mount !== undefined && t.files === undefined)
    fail(['tests', 'mount'], 'mount: needs the files to mount', 'add tests.files: the directory to mount there, or drop mount:');
  return {
    ...(t.files !== undefined ? { files: existingPath(['tests', 'files'], t.files, 'dir') } : {}),
    ...(t.mount !== undefined ? { mount: t.mount } : {}),
    ...(t.network !== undefined ? { network: t.network } : {}),
    ...(t.exec !== undefined ? { exec: t.exec } : {}),
    ...(t.env !== undefined ? { env: t.env } : {}),
  };
}

/** `environment:` with its paths checked and made absolute, sizes in bytes, the pull policy's default. */
function resolveEnvironment(e: NonNullable<TaskParsed['environment']>, existingPath: ExistingPath, fail: Fail): TaskEnvironment {
  const common = {
    ...(e.platform !== undefined ? { platform: e.platform } : {}),
    ...(e.cpus !== undefined ? { cpus: e.cpus } : {}),
    ...(e.memory !== undefined ? { memoryBytes: toBytes(e.memory) as number } : {}),
    ...(e.pids !== undefined ? { pids: e.pids } : {}),
    ...(e.storage !== undefined ? { storageBytes: toBytes(e.storage) as number } : {}),
    ...(e.workdir !== undefined ? { workdir: e.workdir } : {}),
  };
  if ('image' in e) return { image: e.image, buildArgs: {}, pull: e.pull ?? 'never', ...common };
  const dockerfile = existingPath(['environment', 'dockerfile'], e.dockerfile, 'file');
  const context = e.context === undefined ? dirname(dockerfile) : existingPath(['environment', 'context'], e.context, 'dir');
  // The build sends the context alone: a Dockerfile outside it could not be part of what is hashed and sent.
  const inside = relative(context, dockerfile);
  if (inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    fail(
      ['environment', 'dockerfile'],
      `${e.dockerfile} is outside the build context ${e.context ?? '.'}`,
      'put the Dockerfile inside the context directory, or widen context',
    );
  }
  return { dockerfile, context, buildArgs: e.build_args ?? {}, pull: 'never', ...common };
}

export function resolvePolicy(p: TaskParsed['policy']): PolicySpec {
  return {
    preset: p?.preset ?? 'default',
    forbiddenPaths: p?.forbidden_paths ?? [],
    allowedPaths: p?.allowed_paths ?? [],
    maxFilesChanged: p?.max_files_changed,
    maxAddedLines: p?.max_added_lines,
    maxDeletedLines: p?.max_deleted_lines,
    unsafeCommands: p?.unsafe_commands ?? [],
    secrets: {
      paths: p?.secrets?.paths ?? [],
      literals: p?.secrets?.literals ?? [],
      presets: p?.secrets?.presets ?? [],
    },
    severities: p?.severities ?? {},
  };
}

/** A bare local path in `git:` is resolved against the task file, like every other path in it. */
function resolveGitUrl(url: string, dir: string): string {
  const looksRemote = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\\]+@[^:]+:/.test(url);
  return looksRemote || isAbsolute(url) ? url : resolve(dir, url);
}

export function resolveResourceLimits(limits: NonNullable<TaskParsed['limits']>): ResourceLimits {
  const d = DEFAULT_RESOURCE_LIMITS;
  const cpuMs = toMs(limits.cpu_time);
  return {
    pids: limits.pids ?? d.pids,
    memoryBytes: toBytes(limits.memory) ?? d.memoryBytes,
    ...(cpuMs !== undefined ? { cpuSeconds: Math.max(1, Math.ceil(cpuMs / 1000)) } : {}),
    fileSizeBytes: toBytes(limits.file_size) ?? d.fileSizeBytes,
    workspaceBytes: toBytes(limits.workspace_disk) ?? d.workspaceBytes,
    workspaceFiles: limits.workspace_files ?? d.workspaceFiles,
    changeFiles: limits.change_files ?? d.changeFiles,
    changeBytes: toBytes(limits.change_size) ?? d.changeBytes,
  };
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** `512m`, `2g`, `1.5GiB` or a number of bytes. */
export function toBytes(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  const match = SIZE_PATTERN.exec(value.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? '').toLowerCase()[0] ?? '';
  return Math.round(Number(match[1]) * (SIZE_UNITS[unit] ?? 1));
}

/** Task fields win; nested objects merge key by key; arrays are replaced, never concatenated. */
export function mergeDefaults(defaults: DefaultsParsed, task: unknown): unknown {
  if (!isPlainObject(task)) return task;
  const merged = deepMerge(defaults as Record<string, unknown>, task);
  // A repo is one source or another; merging `path` into `git` would make neither. An environment
  // likewise: a task's image merged with the defaults' Dockerfile would be neither.
  if ('repo' in task) merged.repo = task.repo;
  if ('environment' in task) merged.environment = task.environment;
  // A reward verifier is not a JUnit test command: the defaults' JUnit settings do not apply to it.
  if (isPlainObject(task.tests) && task.tests.kind === 'reward') merged.tests = task.tests;
  // Held-out settings without a path (`held_out: { required: false }`) complete the tasks that name
  // their own held-out tests; they do not give held-out tests to tasks that have none.
  if (!('held_out' in task) && defaults.held_out?.path === undefined) delete merged.held_out;
  return merged;
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] = isPlainObject(prior) && isPlainObject(value) ? deepMerge(prior, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
