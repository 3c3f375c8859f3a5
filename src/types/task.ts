/** A task after loading: defaults merged, paths resolved, durations in milliseconds. */
export interface Task {
  id: string;
  version: string;
  /** Absolute path of the task-set file this task came from. */
  sourceFile: string;
  repo: RepoSource;
  instruction: string;
  /** Shell commands run in the workspace before the baseline commit (network allowed). */
  setup: string[];
  tests: TestSpec;
  heldOut?: HeldOutSpec;
  oracle?: { patch: string };
  policy: PolicySpec;
  limits: Limits;
  metadata: TaskMetadata;
}

export type RepoSource =
  | { kind: 'local'; path: string }
  | { kind: 'git'; url: string; commit: string };

export interface TestSpec {
  /** Shell command run with `sh -c` in the workspace, inside the sandbox, without network. */
  command: string;
  /**
   * Where the command writes JUnit XML, relative to the workspace. Undefined means the command
   * writes to `$CRUCIBLE_JUNIT`, a path outside the workspace that the agent cannot pre-fill.
   */
  junit?: string;
  failToPass: string[];
  passToPass: string[] | 'all_others';
  /** Glob patterns (workspace-relative) of files that define the tests; guarded against tampering. */
  testPaths: string[];
}

export interface HeldOutSpec {
  /** Absolute path of a directory whose contents are copied into the workspace after the agent stops. */
  path: string;
  command: string;
  junit?: string;
  /** When true, held-out failures change the verdict; otherwise they are reported apart. */
  required: boolean;
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
}

export interface TaskMetadata {
  category?: string;
  difficulty?: string;
  tags: string[];
}
