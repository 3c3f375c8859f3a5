/**
 * The incident bundle: `incident.json` in the attempt directory when the guard found anything.
 * Sanitized by construction: paths are workspace-relative, commands have credential-like values
 * redacted (src/core/redact), no environment values; the evidence it points to is linked by relative path.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GuardFinding, GuardMode } from './types.js';

export const INCIDENT_FILE = 'incident.json';
export const INCIDENT_SCHEMA_VERSION = 1;

export interface IncidentBundle {
  schemaVersion: typeof INCIDENT_SCHEMA_VERSION;
  mode: GuardMode;
  watcher: 'inotify' | 'poll';
  /** False when the workspace held more entries than the watcher tracks. */
  complete: boolean;
  /** What enforce did: stopped the agent (for which finding), refused commands, or nothing (audit). */
  action: 'stopped' | 'blocked' | 'audit_only';
  stoppedBy?: GuardFinding;
  counts: { incidents: number; blocked: number; auditOnly: number; byRule: Record<string, number> };
  findings: GuardFinding[];
  /** Relative to the attempt directory; attempt.json and diff.patch are written after the agent phase. */
  links: { commands: string; diff: string; attempt: string };
}

export async function writeIncident(
  attemptDir: string,
  input: { mode: GuardMode; watcher: 'inotify' | 'poll'; complete: boolean; findings: readonly GuardFinding[]; stopped?: GuardFinding },
): Promise<IncidentBundle> {
  const { findings } = input;
  const blocked = findings.filter((f) => f.action === 'blocked').length;
  const byRule: Record<string, number> = {};
  for (const f of findings) byRule[f.rule] = (byRule[f.rule] ?? 0) + 1;
  const bundle: IncidentBundle = {
    schemaVersion: INCIDENT_SCHEMA_VERSION,
    mode: input.mode,
    watcher: input.watcher,
    complete: input.complete,
    action: input.stopped ? 'stopped' : blocked > 0 ? 'blocked' : 'audit_only',
    ...(input.stopped ? { stoppedBy: input.stopped } : {}),
    counts: { incidents: findings.length, blocked, auditOnly: findings.filter((f) => f.action === 'audit_only').length, byRule },
    findings: [...findings],
    links: { commands: 'commands.jsonl', diff: 'diff.patch', attempt: 'attempt.json' },
  };
  await writeFile(join(attemptDir, INCIDENT_FILE), `${JSON.stringify(bundle, null, 2)}\n`);
  return bundle;
}
