/** A task after loading: defaults merged, paths resolved, durations in milliseconds. */
export interface Task {
  id: string;
  version: string;
  /** Absolute path of the task-set file this task came from. */
  sourceFile: string;
  repo: RepoSource;
  /** `repo_key`: groups this task's results under that repository in the repo profile, whatever its source. */
  repoKey?: string;
  instruction: string;
  /** Shell commands run in the workspace before the baseline commit (network allowed). */
  setup: string[];
  tests: TestSpec;
  heldOut?: HeldOutSpec;
  /** `held_out_values`: calls of the function under test whose results the harness compares itself. */
  heldOutValues?: HeldOutValuesSpec;
  /** `tests_from`: files of a later npm version laid over the repo before setup, as the task's tests. */
  testsFrom?: NpmFiles;
  /**
   * A patch (`git apply` form) or a script. With `fromNpm` the patch starts empty and is filled in the
   * first time the task's workspace is prepared (src/domain/tasks/npm-source.ts): the diff of those paths
   * between the repo's npm version and the later one.
   */
  oracle?: OracleSpec;
  policy: PolicySpec;
  limits: Limits;
  /** The image the task's commands run in (docker only); absent: the host's toolchain. */
  environment?: TaskEnvironment;
  metadata: TaskMetadata;
}

/** `environment:` of a task after loading: paths absolute, sizes in bytes. */
export interface TaskEnvironment {
  /** Exactly one of image and dockerfile. An image reference: `name[:tag][@sha256:…]`. */
  image?: string;
  /** Absolute path of a Dockerfile, built locally once per content hash of its context. */
  dockerfile?: string;
  /** Absolute build context directory; default: the Dockerfile's directory. */
  context?: string;
  buildArgs: Record<string, string>;
  /** `os/arch[/variant]`. */
  platform?: string;
  cpus?: number;
  memoryBytes?: number;
  pids?: number;
  storageBytes?: number;
  /** Whether a missing image may be pulled. Default `never`: offline-friendly, a clear error instead. */
  pull: 'never' | 'missing';
  /**
   * Container-native task: the absolute path in the image where its files live, or `image` for the
   * image's WORKDIR. Its contents are copied into the workspace, which is mounted there in every
   * phase (docs/environments.md#container-native-tasks).
   */
  workdir?: string;
}

export type RepoSource = { kind: 'local'; path: string } | { kind: 'git'; url: string; commit: string } | { kind: 'npm'; package: NpmPackageRef };

/** One exact version of an npm package and the registry it comes from. */
export interface NpmPackageRef {
  name: string;
  version: string;
  /** The registry's base URL, no trailing slash. */
  registry: string;
  /** An SRI `sha512-…` the registry's `dist.integrity` must equal, when the task pins one. */
  integrity?: string;
}

/** Some paths (files or directories) of an npm package version. */
export interface NpmFiles {
  package: NpmPackageRef;
  paths: string[];
}

/** The report a test command gives: a JUnit XML file, or a stream read by src/domain/evidence/report-format.ts. */
export type TestFormat = 'junit' | 'tap' | 'go-json' | 'cargo-json' | 'pytest';

/** Where a stream format's report is read: the command's stdout, or the file `$CRUCIBLE_REPORT` names. */
export type TestReportSource = 'stdout' | 'file';

export interface TestSpec {
  /** Shell command run with `sh -c` in the workspace, inside the sandbox, without network. */
  command: string;
  /** Undefined means `junit`. */
  format?: TestFormat;
  /** Stream formats only; undefined means `stdout`. */
  report?: TestReportSource;
  /**
   * Where the command writes JUnit XML, relative to the workspace. Undefined means the command
   * writes to `$CRUCIBLE_JUNIT`, a path outside the workspace that the agent cannot pre-fill.
   */
  junit?: string;
  failToPass: string[];
  passToPass: string[] | 'all_others';
  /** Glob patterns (workspace-relative) of files that define the tests; guarded against tampering. */
  testPaths: string[];
  /** Set for `kind: reward`: then failToPass is [REWARD_TEST_ID], passToPass [], junit absent. */
  reward?: RewardSpec;
}

/** A known-good fix: a patch applied with git, or a bash script run in the workspace (its change captured like an agent's). */
export type OracleSpec = { patch: string; fromNpm?: NpmFiles; script?: undefined } | { script: string; patch?: undefined; fromNpm?: undefined };

/**
 * `tests.kind: reward`: the command writes one number in [0, 1] to `$CRUCIBLE_REWARD`. The run is
 * graded as one test, REWARD_TEST_ID, that passes on a reward of exactly 1.
 */
export interface RewardSpec {
  /** Absolute path of a directory laid over the workspace for the verifier's runs only; absent: none. */
  files?: string;
  /** With `files`: mount them read-only at this absolute path (Harbor's /tests) instead of laying them over the workspace. */
  mount?: string;
  /** The verifier's network: `none` (default) or `host`; the agent phase never has more than the gateway. */
  network?: 'none' | 'host';
  /**
   * `tests.exec`: the verifier is this program and its arguments, executed directly with no shell
   * (a script's `#!` line picks its interpreter), as Harbor runs tests/test.sh. Absent: `sh -c command`.
   */
  exec?: string[];
  /** `tests.env`: variables the verifier's run gets (Harbor's TEST_DIR and [verifier] env). */
  env?: Record<string, string>;
}

/** The one test id a reward verifier's run reports. */
export const REWARD_TEST_ID = 'reward';

export interface HeldOutSpec {
  /** Absolute path of a directory whose contents are copied into the workspace after the agent stops. */
  path: string;
  command: string;
  format?: TestFormat;
  report?: TestReportSource;
  junit?: string;
  /** When true, held-out failures change the verdict; otherwise they are reported apart. */
  required: boolean;
}

/**
 * `held_out_values:` a held-out check of values: each call runs the function under test in a fresh
 * interpreter inside the sandbox, its result crosses to the harness with exact builtin types only,
 * and the harness compares it with `expect`, which never enters the sandbox (docs/tasks.md#held-out-values).
 */
export interface HeldOutValuesSpec {
  runtime: 'python' | 'node';
  /** Workspace-relative directory the called modules are imported from ('.' by default). */
  root: string;
  /** When true (the default), a call whose value differs fails the attempt (held_out_values at severity error). */
  required: boolean;
  calls: HeldOutValueCall[];
}

/** A JSON value, as a task file writes one. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface HeldOutValueCall {
  /** Python `package.module:function` (an attribute path after the colon); Node `path/to/module.js:export`. */
  call: string;
  args: JsonValue[];
  expect: JsonValue;
}

export type Severity = 'info' | 'warning' | 'error' | 'critical';

/** Per-check settings; the grading module owns the meaning of each field. */
export interface PolicySpec {
  preset: 'default' | 'strict';
  forbiddenPaths: string[];
  allowedPaths: string[];
  maxFilesChanged?: number;
  maxAddedLines?: number;
  maxDeletedLines?: number;
  unsafeCommands: string[];
  secrets: { paths: string[]; literals: string[]; presets: string[] };
  severities: Record<string, Severity>;
}

export interface Limits {
  agentTimeoutMs: number;
  testTimeoutMs: number;
  setupTimeoutMs: number;
  /** Enforced on every sandboxed command of the attempt (agent and tests); see ExecLimits. */
  resources: ResourceLimits;
}

/** What one attempt may use; each one hit ends the attempt as `resource_exceeded` naming it. */
export interface ResourceLimits {
  /** Processes and threads alive at once. */
  pids: number;
  memoryBytes: number;
  /** CPU time summed over every process of one command; undefined: unlimited. */
  cpuSeconds?: number;
  /** Largest single file a command may write. */
  fileSizeBytes: number;
  /** Size and file count of the workspace while the agent works. */
  workspaceBytes: number;
  workspaceFiles: number;
  /** The agent's change as graded (files outside ignored paths): file count and total size. */
  changeFiles: number;
  changeBytes: number;
}

export type ResourceLimitName = 'pids' | 'memory' | 'cpu_time' | 'file_size' | 'workspace_disk' | 'workspace_files' | 'change_files' | 'change_size';

export interface TaskMetadata {
  category?: string;
  difficulty?: string;
  tags: string[];
}
