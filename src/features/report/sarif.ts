import { CHECKS } from '../../domain/checks/index.js';
import { CHECK_IDS, type AttemptResult, type Severity } from '../../core/types/index.js';

/*
 * SARIF 2.1.0 for policy findings: one rule per check id, one result per failed check of an
 * attempt. Tests pass or fail through JUnit; SARIF carries what code scanning shows next to code.
 */

export const SARIF_VERSION = '2.1.0';
export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

export type SarifLevel = 'none' | 'note' | 'warning' | 'error';

const LEVEL: Record<Severity, SarifLevel> = { info: 'note', warning: 'warning', error: 'error', critical: 'error' };
/** GitHub code scanning ranks alerts by this property (0–10). */
const SECURITY_SEVERITY: Record<Severity, string> = { info: '2.0', warning: '5.0', error: '7.5', critical: '9.5' };

export interface SarifLocation {
  path: string;
  line?: number;
}

export interface SarifToolInfo {
  version: string;
  informationUri?: string;
}

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: SarifLevel;
  message: { text: string };
  locations?: Array<{
    physicalLocation: {
      artifactLocation: { uri: string; uriBaseId: string };
      region?: { startLine: number };
    };
  }>;
  partialFingerprints: Record<string, string>;
  properties: Record<string, unknown>;
}

export interface SarifLog {
  $schema: string;
  version: typeof SARIF_VERSION;
  runs: Array<{
    tool: { driver: { name: string; version: string; informationUri?: string; rules: SarifRule[] } };
    automationDetails: { id: string };
    originalUriBaseIds: Record<string, { description: { text: string } }>;
    results: SarifResult[];
    properties: Record<string, unknown>;
  }>;
}

interface SarifRule {
  id: string;
  name: string;
  shortDescription: { text: string };
  defaultConfiguration: { level: SarifLevel };
  properties: { 'security-severity': string; tags: string[] };
}

export function sarifLevel(severity: Severity): SarifLevel {
  return LEVEL[severity] ?? 'warning';
}

const toRuleName = (id: string): string =>
  id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('');

/** A path is kept only if it is repo-relative and stays inside the repo. */
function repoRelative(path: string): string | null {
  const p = path.replace(/\\/g, '/').replace(/^\.\//, '');
  if (p === '' || p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.split('/').includes('..')) return null;
  return p;
}

function asLocation(v: unknown): SarifLocation | null {
  if (typeof v === 'string') {
    const path = repoRelative(v);
    return path ? { path } : null;
  }
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const raw = typeof o.path === 'string' ? o.path : typeof o.file === 'string' ? o.file : null;
    const path = raw === null ? null : repoRelative(raw);
    if (!path) return null;
    const line = typeof o.line === 'number' && Number.isInteger(o.line) && o.line >= 1 ? o.line : undefined;
    return line === undefined ? { path } : { path, line };
  }
  return null;
}

/** Evidence keys whose lists name files: forbidden_paths `hits`, scope `outside`, tampering and secrets `findings`, … */
const LOCATION_LISTS = ['paths', 'files', 'locations', 'matches', 'hits', 'violations', 'outside', 'findings', 'writes'];

/**
 * Where a finding points, read from the check's evidence: `path`/`file` (+ `line`) on the evidence
 * itself or on the items of the lists above. Absolute paths (writes outside the workspace) and
 * paths that climb out of the repo are left out: SARIF locations here are repo-relative.
 */
export function findingLocations(evidence: Record<string, unknown>, max = 10): SarifLocation[] {
  const found: SarifLocation[] = [];
  const single = asLocation(evidence);
  if (single) found.push(single);
  for (const key of LOCATION_LISTS) {
    const value = evidence[key];
    // Checks cap long lists as { items, count } (src/domain/checks/types.ts).
    const list = Array.isArray(value)
      ? value
      : typeof value === 'object' && value !== null && Array.isArray((value as { items?: unknown }).items)
        ? (value as { items: unknown[] }).items
        : null;
    if (list === null) continue;
    for (const item of list) {
      const loc = asLocation(item);
      if (loc) found.push(loc);
    }
  }
  const seen = new Set<string>();
  return found
    .filter((l) => {
      const key = `${l.path}:${l.line ?? ''}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, max);
}

function ruleFor(id: string, severity: Severity): SarifRule {
  const description = (CHECKS as Readonly<Record<string, { description: string } | undefined>>)[id]?.description;
  return {
    id,
    name: toRuleName(id) || 'Check',
    shortDescription: { text: description ? `${description[0]?.toUpperCase() ?? ''}${description.slice(1)}` : `Crucible policy check ${id}` },
    defaultConfiguration: { level: sarifLevel(severity) },
    properties: { 'security-severity': SECURITY_SEVERITY[severity] ?? '5.0', tags: ['crucible', 'policy'] },
  };
}

export function renderSarif(runId: string, attempts: readonly AttemptResult[], tool: SarifToolInfo): SarifLog {
  const rules: SarifRule[] = [];
  const ruleIndex = new Map<string, number>();
  const results: SarifResult[] = [];
  const addRule = (id: string, severity: Severity): void => {
    if (ruleIndex.has(id)) return;
    ruleIndex.set(id, rules.length);
    rules.push(ruleFor(id, severity));
  };
  // Every registered check is a rule, in registry order, so rule indexes are stable across runs;
  // its level is the severity the first attempt gave it (policies can change severities).
  const firstSeverity = new Map<string, Severity>();
  for (const a of attempts) for (const c of a.checks) if (!firstSeverity.has(c.id)) firstSeverity.set(c.id, c.severity);
  for (const id of CHECK_IDS) addRule(id, firstSeverity.get(id) ?? 'error');
  for (const attempt of attempts) {
    for (const check of attempt.checks) {
      addRule(check.id, check.severity);
      if (check.passed) continue;
      const locations = findingLocations(check.evidence);
      results.push({
        ruleId: check.id,
        ruleIndex: ruleIndex.get(check.id) as number,
        level: sarifLevel(check.severity),
        message: { text: `${check.message} (task ${attempt.taskId}, agent ${attempt.agent}, trial ${attempt.trial}; cause ${attempt.cause})` },
        ...(locations.length > 0
          ? {
              locations: locations.map((l) => ({
                physicalLocation: {
                  artifactLocation: { uri: encodeURI(l.path), uriBaseId: 'TASKROOT' },
                  ...(l.line !== undefined ? { region: { startLine: l.line } } : {}),
                },
              })),
            }
          : {}),
        partialFingerprints: { crucibleFinding: `${attempt.taskId}/${attempt.agent}/${attempt.trial}/${check.id}` },
        properties: {
          severity: check.severity,
          attemptId: attempt.attemptId,
          taskId: attempt.taskId,
          agent: attempt.agent,
          trial: attempt.trial,
          verdict: attempt.verdict,
          cause: attempt.cause,
        },
      });
    }
  }
  return {
    $schema: SARIF_SCHEMA_URI,
    version: SARIF_VERSION,
    runs: [
      {
        tool: {
          driver: {
            name: 'Crucible',
            version: tool.version,
            ...(tool.informationUri ? { informationUri: tool.informationUri } : {}),
            rules,
          },
        },
        automationDetails: { id: `crucible/${runId}` },
        originalUriBaseIds: {
          TASKROOT: { description: { text: "The root of the task's repository; each result's properties name the task." } },
        },
        results,
        properties: { runId },
      },
    ],
  };
}
