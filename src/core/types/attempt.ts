import type { AgentResult } from './agent.js';

export const ATTEMPT_SCHEMA_VERSION = 1;

export const VERDICTS = ['PASS', 'FAIL', 'ERROR'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * Exactly one per attempt. `task_error` (the task is broken: a fail-to-pass id the tests do not
 * report, an oracle patch that does not apply, a repo that cannot be fetched), `harness_error`
 * (the machine failed) and `provider_error` (the model provider failed the agent, as the gateway
 * saw it) are never counted against the agent.
 */
export const CAUSES = [
  'passed',
  'tests_failed',
  'regression',
  'tampered',
  'policy_violation',
  'no_changes',
  'agent_timeout',
  'max_turns',
  'budget_exceeded',
  'context_exceeded',
  'agent_crashed',
  'patch_not_applied',
  'resource_exceeded',
  'task_error',
  'harness_error',
  'provider_error',
] as const;
export type Cause = (typeof CAUSES)[number];

/** Causes that say nothing about the agent: left out of every pass rate's denominator. */
export const UNSCORED_CAUSES: ReadonlySet<Cause> = new Set<Cause>(['task_error', 'harness_error', 'provider_error']);

/**
 * Who the agent of an attempt was, beyond its spec: for an external agent (a CLI agent run from a
 * profile), the profile, a hash of its content, the program's version as its `version_command`
 * printed it, the npm package and the model. Taken once per run, before the first attempt.
 */
export interface AgentInfo {
  profile: string;
  /** sha256 of the profile's content (hex); reports show its first 8 characters. */
  profileHash: string;
  version?: string;
  package?: string;
  model: string;
}

/** A defect of the task itself, named where the user fixes it. */
export interface TaskDefect {
  /** The task-set file. */
  file: string;
  /** The field to fix, e.g. `tasks[2].tests.fail_to_pass[0]`. */
  field: string;
  problem: string;
  fix: string;
}

/** One task as the plan pins it: a resumed run must find the same hash to reuse its attempts. */
export interface PlannedTask {
  id: string;
  version: string;
  /** The task and every defining setting, agents' included: attempt ids and the config hash derive from it. */
  hash: string;
  /**
   * What the task is, for comparing runs (`crucible compare`): its content and the settings that
   * change how it is graded, not how the run reached its model (taskIdentity). Absent in plans
   * written before it existed; compare then falls back to `hash`.
   */
  identity?: string;
}

/** One attempt of the plan: what to run, before anything runs. */
export interface AttemptPlan {
  attemptId: string;
  runId: string;
  taskId: string;
  taskVersion: string;
  /** Agent spec as the user wrote it, e.g. `oracle` or `openai:gpt-4.1-mini`. */
  agent: string;
  /** 0-based repeat index. */
  trial: number;
  /** Position in the stable plan order. */
  index: number;
}

export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestCaseResult {
  id: string;
  status: TestStatus;
  /**
   * Set on a `failed` case reported as an `<error>` (the runner could not run it: a fixture, a
   * collection or import error, a crash) rather than a `<failure>` of its assertions.
   */
  errored?: true;
  durationMs?: number;
  message?: string;
}

/** How many of a set of tests passed. */
export interface TestCount {
  passed: number;
  total: number;
}

/** A named set of tests (F2P, P2P, held-out) matched against one JUnit report. */
export interface TestGroupOutcome extends TestCount {
  /**
   * Ids that did not pass, with why: `failed`, `skipped`, `missing` or `duplicated`. A `missing`
   * id may carry `near`: the reported ids closest to it (a typo in the task set, most likely).
   */
  failing: Array<{ id: string; reason: 'failed' | 'skipped' | 'missing' | 'duplicated'; near?: string[] }>;
}

/** Test ids that more than one test case reported: how many cases collapsed into how many ids. */
export interface DuplicateIds {
  /** Distinct ids reported by more than one case. */
  ids: number;
  /** The cases behind those ids. */
  cases: number;
  /** A few of them, most-repeated first. */
  examples: Array<{ id: string; cases: number }>;
}

export interface TestRunEvidence {
  command: string;
  /** How the run's tree was given: an overlay of the task's prepared tree, or a copy of it. Absent in records before overlays. */
  tree?: TreeProvision;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Number of test cases parsed from JUnit. Zero makes the run invalid, never a pass. */
  parsed: number;
  /** False when the exit code and the parsed report disagree (e.g. exit 1 yet no failures). */
  consistent: boolean;
  /** Why the run is not usable as evidence, when it is not. */
  invalidReason?: string;
  /**
   * Set when the command could not start: no test ran, so the run is evidence of nothing (never a
   * failing test). `proven`: the sandbox's own spawn of it failed (an errno, out of band, which no
   * code under test can fake); otherwise it exited 126 or 127, or was killed, having written nothing.
   */
  notStarted?: { reason: string; proven: boolean };
  failToPass: TestGroupOutcome;
  passToPass: TestGroupOutcome;
  /** Combined output for the report, bounded: head, tail and failure lines kept, each cut marked (format/output-cut.ts). */
  outputTail: string;
  /**
   * Set when several test cases share an id (the report's names do not tell them apart): a listed
   * id among them cannot pass, and `all_others` counts each such id once.
   */
  duplicates?: DuplicateIds;
  /** Set when the test command hit a sandbox limit (the agent's code under test did). */
  limitExceeded?: import('./task.js').ResourceLimitName;
  /**
   * `tests.kind: reward`: the reward the verifier wrote, in [0, 1] (absent when it wrote none or an
   * unreadable one: `invalidReason` says which). Only exactly 1 passes; a partial reward is kept here.
   */
  reward?: number;
  /**
   * Writes the harness's Node sentinel refused in the test process (src/domain/evidence/node-sentinel.ts):
   * to node:assert or node:test's reporting surface. Read from a file outside the workspace, deduplicated.
   */
  runnerWrites?: SentinelWrite[];
  /**
   * Python: what the harness's sentinel reported from inside the test processes
   * (evidence/python-sentinel.ts); absent when the run had no sentinel.
   */
  sentinel?: SentinelEvidence;
  /**
   * The sandbox's supervisor channel carried what its supervisor never writes during this run
   * (ExecResult.forgedReport): the supervisor check judges it.
   */
  forgedReport?: string;
}

/** How one held-out value call came out, as the harness judged the value it read from the channel. */
export interface HeldOutValueResult {
  call: string;
  /**
   * `equal` / `differs` from `expect`; `raised` an exception; `unserialisable` a value of no builtin
   * type; `lying` a builtin type's subclass, or an object with its own equality or conversion
   * (evidence of tampering); `missing` no result reached the harness.
   */
  outcome: 'equal' | 'differs' | 'raised' | 'unserialisable' | 'lying' | 'missing';
  /** The value as received (JSON, cut at 300 characters), or what was wrong. */
  detail: string;
}

/** The held-out value run: one fresh interpreter that ran every call. */
export interface HeldOutValuesEvidence {
  runtime: 'python' | 'node';
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  results: HeldOutValueResult[];
  /** Records on the value channel the runner never writes: a second connection, a repeated or unknown call. */
  forged: string[];
  /** The Python sentinel's evidence of the run, as for a test run. */
  sentinel?: SentinelEvidence;
  limitExceeded?: import('./task.js').ResourceLimitName;
  outputTail: string;
}

/** One refused write to a frozen module, as the sentinel recorded it in the test process. */
export interface SentinelWrite {
  /** What was written to: `node:assert.equal`, `node:test/reporters.spec`, … */
  target: string;
  /** How: `set` (assignment, destructuring, Object.assign, Reflect.set), `Object.defineProperty`, … */
  via: string;
  /** Where the write was made, workspace-relative when it lies in the workspace (absent when the stack did not say). */
  file?: string;
  line?: number;
}

/** One event the Python sentinel reported, attributed to the frame that caused it. */
export interface SentinelFinding {
  /** `import`, `gc`, `frame`, `ctypes`, `rerun`, `report-write`, `trace`, `compile`, `code`, `patch`, `memory`, `channel`. */
  event: string;
  detail: string;
  /** Workspace-relative where it is in the workspace; empty when no frame caused it. */
  file: string;
  line: number;
  pid: number;
}

/** The sentinel's channel after one test run. */
export interface SentinelEvidence {
  /** Python processes that connected (each interpreter start and each fork that reported). */
  processes: number;
  /** Test-runner processes (`-m pytest`, `-m unittest`, a pytest script) among them. */
  runners: number;
  /** Pids of runner processes whose channel closed before the sentinel's end of process: `os._exit`, a kill, a cut channel. */
  unfinished: number[];
  findings: SentinelFinding[];
  /** Findings past the list's cap. */
  moreFindings?: number;
  /** Lines on the channel the sentinel never writes (written by the process itself). */
  garbled?: number;
}

export type FileChangeKind = 'added' | 'modified' | 'deleted' | 'renamed';

export interface FileChange {
  path: string;
  oldPath?: string;
  kind: FileChangeKind;
  binary: boolean;
  added: number;
  deleted: number;
  /** A symlink the change leaves at `path`: its target (as git stores it, cut at 1 KiB). */
  symlink?: string;
}

export interface DiffStats {
  files: FileChange[];
  filesChanged: number;
  added: number;
  deleted: number;
  /** diff.patch as stored: its size, and whether it was cut at its cap. */
  patch?: { bytes: number; truncated: boolean; capBytes: number };
}

/**
 * What the agent changed that verification did not use: files under ignored paths (build output,
 * caches, bytecode), installed dependencies, and new test files and configuration set aside.
 */
export interface NotGraded {
  count: number;
  /** The first paths, with why each was left out. */
  items: Array<{ path: string; reason: 'ignored' | 'dependency' | 'new_test' }>;
}

export interface CheckResult {
  id: string;
  passed: boolean;
  severity: import('./task.js').Severity;
  message: string;
  evidence: Record<string, unknown>;
}

export interface PhaseTimings {
  prepareMs: number;
  /** Parts of prepareMs: the repo put into the workspace; the task's setup commands (when it has any); */
  copyMs?: number;
  setupMs?: number;
  /** the baseline commit with what goes with it (ignored-file list, the workspace's repo, the pristine copy). */
  baselineCommitMs?: number;
  /** The baseline test run, when it ran (part of neither prepareMs nor agentMs). */
  baselineMs?: number;
  agentMs: number;
  verifyMs: number;
  totalMs: number;
}

/** Where an attempt ran under docker: enough to tell two runs of one mutable tag apart. */
export interface EnvironmentProvenance {
  /** What produced the image: a configured reference, a Dockerfile build, or the host view. */
  source: 'image' | 'dockerfile' | 'host';
  /** As configured: the image reference, or the Dockerfile path relative to the task set. */
  reference: string;
  /** Local image id (`sha256:…`) the attempt was set to run. */
  imageId: string;
  /** Image id the containers reported; differs from imageId only if the image changed underneath. */
  containerImageId?: string;
  /** `name@sha256:…` when the image has one; null when it has none (a local build, an unpushed tag). */
  repoDigest: string | null;
  /** True only when the reference itself pins content (`@sha256:`); a tag never is. */
  immutable: boolean;
  /** Dockerfile builds: SHA-256 of the build context, the cache key. */
  contextHash?: string;
  platform: string;
  /** The limits in force on the containers. */
  limits: { cpus?: number; memoryBytes?: number; pids?: number; storageBytes?: number };
  engineVersion: string;
}

/** How a tree is given: a test run's (src/domain/evaluation/give-tree.ts), the agent's (src/engine/agent-tree.ts). */
export type TreeProvision = 'kernel-overlay' | 'copy';

export interface AttemptResult extends AttemptPlan {
  schemaVersion: typeof ATTEMPT_SCHEMA_VERSION;
  verdict: Verdict;
  cause: Cause;
  /** One line that says why, e.g. the failing F2P ids or the harness error. */
  message: string;
  /** 0–100, from the checks; undefined for harness errors. */
  score?: number;
  sandbox: string;
  /** How the agent's workspace was given (src/engine/agent-tree.ts): an overlay of the prepared tree, or a copy. Absent in records before overlays. */
  workspace?: TreeProvision;
  baselineCommit?: string;
  tests?: TestRunEvidence;
  /**
   * The same tests run once at the baseline, before the agent (absent with `--no-baseline-tests`).
   * Tells a regression (a pass-to-pass test that passed here) from a test that never passed.
   */
  baselineTests?: TestRunEvidence;
  /**
   * Held-out tests, laid over the agent's change after it stopped. Every case must pass; the
   * cases that passed at the baseline are required by id (the fail-to-pass group), and the run
   * must report at least as many cases as at the baseline.
   */
  heldOut?: TestRunEvidence;
  /** The held-out tests run once at the baseline, to know which cases must appear afterwards. */
  baselineHeldOut?: TestRunEvidence;
  diff?: DiffStats;
  /** Changes the verification copy did not include; see NotGraded. */
  notGraded?: NotGraded;
  /** With cause `resource_exceeded`: the limit that was hit. */
  resourceLimit?: import('./task.js').ResourceLimitName;
  checks: CheckResult[];
  agentResult?: AgentResult;
  /** Set for external agents: profile, version and model (see AgentInfo). */
  agentInfo?: AgentInfo;
  timings: PhaseTimings;
  /** docker: what image the attempt's commands really ran in, and with which limits. */
  environment?: EnvironmentProvenance;
  startedAt: string;
  finishedAt: string;
  /** Set when the run had `--guard`: what the online guard saw and did (the details are in incident.json). */
  guard?: GuardSummary;
  /** With cause `task_error`: what is wrong with the task, field by field. */
  taskError?: { defects: TaskDefect[] };
  /** Set when the harness, not the agent, failed; `phase` says where. */
  harnessError?: {
    phase: 'prepare' | 'agent' | 'verify' | 'record';
    message: string;
    /**
     * What one line cannot hold: for a failed setup command, its output cut to what shows the
     * reason (head, tail, the error lines, every `npm error` line; each cut marked), also in
     * `setup-output.txt` in the attempt directory.
     */
    detail?: string;
    /**
     * statfs found the state directory's file system full when the error happened (before the
     * attempt's cleanup freed space): the one evidence of a full disk that stops a run.
     */
    stateDiskFull?: boolean;
  };
}

/** `audit` records and lets everything run; `enforce` refuses unsafe commands and stops the agent on a filesystem violation. */
export type GuardMode = 'audit' | 'enforce';

/** The online guard's line in attempt.json (src/domain/guard/, docs/guard.md). */
export interface GuardSummary {
  mode: GuardMode;
  /** How the workspace was watched. */
  watcher: 'inotify' | 'poll';
  /** Findings of every kind (the full list is in incident.json). */
  incidents: number;
  /** Commands refused before they ran (enforce). */
  blocked: number;
  /** Whether enforce stopped the agent on a filesystem finding. */
  stopped: boolean;
  /** Findings recorded and let run (audit, or nothing a post-hoc check would fail). */
  auditOnly: number;
  /** Fastest and slowest time-to-detection over the findings, in ms. */
  detectionMs?: { min: number; max: number };
  /** `incident.json`, relative to the attempt directory, when there were findings. */
  incidentFile?: string;
}
