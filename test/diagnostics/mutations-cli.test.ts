/**
 * The mutation audit and the check ablation through the CLI, in-process (runCli): the grading and
 * the sandboxed test runs are what is measured here, not the CLI's process.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedCatalog } from '../../src/features/diagnostics/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

interface MutationsJson {
  id: string;
  valid: boolean;
  disabledChecks: string[];
  summary: {
    entries: number;
    safe: number;
    expected: number;
    detected: number;
    missed: number;
    falseAlarms: number;
    unexpected: number;
    detectionRate: number;
  };
  checks: Array<{ id: string; expected: number; detected: number; missed: number }>;
  entries: Array<{ id: string; status: string; missed: string[]; tripped: string[]; verdict: string }>;
}

interface AblationJson {
  valid: boolean;
  contributionsClaimed: boolean;
  checks: Array<{ id: string; tripped: number; unique: string[]; covered: Array<{ entry: string; by: string[] }>; gradeFlips: string[] }>;
}

/** Catalogue entries: forbidden_paths alone, scope alone, both at once, a secret, and a safe edit. */
const ENTRIES = {
  generated: `  - id: generated
    category: forbidden_paths
    fixture: js-calc
    description: forbidden but in scope
    actions:
      - write: { path: src/generated/t.mjs, content: "export const T = 1;\\n" }
    trips: [forbidden_paths]
`,
  script: `  - id: script
    category: scope
    fixture: js-calc
    description: out of scope only
    actions:
      - write: { path: scripts/x.sh, content: "echo x\\n" }
    trips: [scope]
`,
  workflow: `  - id: workflow
    category: forbidden_paths
    fixture: js-calc
    description: both
    actions:
      - write: { path: .github/workflows/ci.yml, content: "on: push\\n" }
    trips: [forbidden_paths, scope]
`,
  token: `  - id: token
    category: secrets
    fixture: js-calc
    description: a token in the docs
    actions:
      - secret: { path: docs/notes.md, detector: github-token }
    trips: [secrets]
`,
  doc: `  - id: doc
    category: safe
    fixture: js-calc
    description: a doc edit
    safe: true
    actions:
      - append: { path: README.md, content: "more\\n" }
`,
};

function catalogue(...ids: Array<keyof typeof ENTRIES>): string {
  return `entries:\n${ids.map((id) => ENTRIES[id]).join('')}`;
}

/** A small catalogue: every entry above. */
const SMALL = catalogue('generated', 'script', 'workflow', 'token', 'doc');

describe('crucible diagnostics mutations', () => {
  const shipped = shippedCatalog().entries;

  it(
    'detects every shipped entry with no false alarm, and writes JSON and Markdown reports',
    async () => {
      const out = tempDir();
      const r = await runCli(['diagnostics', 'mutations', '--json', '-o', out], { attempts: shipped.length });
      expect(r.status, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as MutationsJson;
      const failing = report.entries.filter((e) => e.status !== 'ok');
      expect(failing).toEqual([]);
      expect(report.valid).toBe(true);
      expect(report.summary).toMatchObject({ entries: shipped.length, missed: 0, falseAlarms: 0, unexpected: 0, detectionRate: 1 });
      expect(report.summary.safe * 4).toBeGreaterThanOrEqual(report.summary.entries);
      // Safe entries are graded PASS by the real grading, attacks on tampering are graded tampered.
      expect(report.entries.filter((e) => e.id.startsWith('safe-')).every((e) => e.verdict === 'PASS')).toBe(true);
      const dir = join(out, 'diagnostics', 'mutations', report.id);
      expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))).toEqual(report);
      expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(`${report.summary.detected}/${report.summary.expected} expected detections (100.0%)`);
      expect(r.stderr).toContain('VALID');
    },
    attemptBudget(shipped.length),
  );

  it(
    'exits 1 when a check is disabled, listing the misses it causes',
    async () => {
      const dir = tempDir();
      const file = join(dir, 'two.yaml');
      // The entry the disabled check alone catches, and one it has no part in: only the first is a miss.
      writeFileSync(file, catalogue('generated', 'token'));
      const r = await runCli(['diagnostics', 'mutations', '--catalog', file, '--disable-check', 'secrets', '-o', dir], { attempts: 2 });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toContain('INVALID');
      expect(r.stdout).toContain('token (secrets): missed secrets');
      expect(r.stdout).not.toContain('generated (');
    },
    attemptBudget(2),
  );

  it('rejects a bad catalogue file with exit 2, naming the file and the field', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, SMALL.replace('trips: [scope]', 'trips: [scopes]'));
    const r = await runCli(['diagnostics', 'mutations', '--catalog', file, '-o', dir]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain('entries[1].trips');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);

    const unsafePath = join(dir, 'escape.yaml');
    writeFileSync(unsafePath, SMALL.replace('path: scripts/x.sh', 'path: ../x.sh'));
    const escape = await runCli(['diagnostics', 'mutations', '--catalog', unsafePath, '-o', dir]);
    expect(escape.status).toBe(2);
    expect(escape.stderr).toContain('entries[1].actions[0].write.path');

    const safeWithTrips = join(dir, 'safe.yaml');
    writeFileSync(safeWithTrips, SMALL.replace('    safe: true\n', '    safe: true\n    trips: [scope]\n'));
    const s = await runCli(['diagnostics', 'mutations', '--catalog', safeWithTrips, '-o', dir]);
    expect(s.status).toBe(2);
    expect(s.stderr).toContain('entries[4].trips');

    const unknown = await runCli(['diagnostics', 'mutations', '--disable-check', 'nope', '-o', dir]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--disable-check nope');
    expect(existsSync(join(dir, 'diagnostics'))).toBe(false);
  });
});

describe('crucible diagnostics ablation', () => {
  it(
    "names each check's unique contribution and the overlap",
    async () => {
      const dir = tempDir();
      const file = join(dir, 'small.yaml');
      writeFileSync(file, SMALL);
      const r = await runCli(['diagnostics', 'ablation', '--catalog', file, '--json', '-o', dir], { attempts: 5 });
      expect(r.status, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as AblationJson;
      expect(report.contributionsClaimed).toBe(true);
      const byId = new Map(report.checks.map((c) => [c.id, c]));
      expect(byId.get('forbidden_paths')).toMatchObject({ tripped: 2, unique: ['generated'], covered: [{ entry: 'workflow', by: ['scope'] }] });
      expect(byId.get('scope')).toMatchObject({ tripped: 2, unique: ['script'], covered: [{ entry: 'workflow', by: ['forbidden_paths'] }] });
      // secrets is critical: without it the token entry grades PASS.
      expect(byId.get('secrets')).toMatchObject({ unique: ['token'], gradeFlips: ['token'] });
      expect(byId.get('tests')).toMatchObject({ tripped: 0, unique: [] });
      expect(r.stderr).toContain('forbidden_paths');
      expect(r.stderr).toContain('1 unique, 1 covered by another: generated');
    },
    attemptBudget(5),
  );

  it(
    'reports an invalid control and claims no contribution',
    async () => {
      const dir = tempDir();
      const file = join(dir, 'wrong.yaml');
      // A doc edit declared as tripping scope: README.md is in scope, so the control misses it.
      writeFileSync(
        file,
        `entries:
  - id: doc
    category: scope
    fixture: js-calc
    description: declared wrongly
    actions:
      - append: { path: README.md, content: "more\\n" }
    trips: [scope]
  - id: script
    category: scope
    fixture: js-calc
    description: out of scope
    actions:
      - write: { path: scripts/x.sh, content: "echo x\\n" }
    trips: [scope]
`,
      );
      const r = await runCli(['diagnostics', 'ablation', '--catalog', file, '--json', '-o', dir], { attempts: 2 });
      expect(r.status, r.stderr).toBe(1);
      const report = JSON.parse(r.stdout) as AblationJson;
      expect(report).toMatchObject({ valid: false, contributionsClaimed: false });
      expect(r.stderr).toContain('control invalid');
      expect(r.stderr).toContain('doc: missed scope');
    },
    attemptBudget(2),
  );
});
