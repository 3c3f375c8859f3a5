/** The online guard's records: what it saw while the agent ran, and what it did about it. */

/** `audit` records and lets everything run; `enforce` refuses unsafe commands and stops the agent on a filesystem violation. */
export type { GuardMode } from '../../core/types/index.js';
import type { GuardMode } from '../../core/types/index.js';

export const GUARD_MODES: readonly GuardMode[] = ['audit', 'enforce'];

/** Filesystem rules (each named after the post-hoc check whose path rules it applies) and the command rule. */
export type GuardRule = 'forbidden_path' | 'test_file' | 'out_of_scope' | 'secret_path' | 'file_count' | 'deletion' | 'escaping_symlink' | 'unsafe_command';

/**
 * What the guard did: `blocked` a command refused before it ran, `stopped` the agent's process tree
 * ended, `audit_only` recorded and let run (audit mode, or a finding no post-hoc check would fail).
 */
export type GuardAction = 'blocked' | 'stopped' | 'audit_only';

export interface GuardFinding {
  rule: GuardRule;
  /** The post-hoc check that judges the same thing, when one does. */
  check?: string;
  /** Workspace-relative path (filesystem rules). */
  path?: string;
  /** The command, credential-like values redacted (command rule). */
  argv?: string[];
  /** Which unsafe-command rule, glob or limit matched. */
  detail: string;
  /** Whether a post-hoc check of blocking severity judges this: only these make `enforce` act. */
  blocking: boolean;
  action: GuardAction;
  /** Milliseconds from the change (its mtime, or the request) to its detection; never negative. */
  detectionMs: number;
  /** When it was detected (ISO). */
  at: string;
  /** `agent`: a command a CLI agent reported it ran inside its own process (seen after the fact). */
  reportedBy?: 'agent';
}

/** The guard's line in attempt.json (defined with the attempt record). */
export type { GuardSummary } from '../../core/types/index.js';
