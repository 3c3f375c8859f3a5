import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/features/audit/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

function readReport(out: string, stdout: string): { report: AuditReport & { dir: string }; dir: string } {
  const report = JSON.parse(stdout) as AuditReport & { dir: string };
  return { report, dir: join(out, 'audit', report.id) };
}

describe('crucible audit', () => {
  it(
    'runs the reference agents of the examples registry on two bundled examples, twice each, and finds them conforming',
    async () => {
      const out = tempDir();
      // js-slugify: oracle, nop, tamper; py-median: oracle, nop, secret-leak; 2 trials each.
      const result = await runCli(
        ['audit', 'examples/tasks.yaml', '--task', 'js-slugify', '--task', 'py-median', '--runs', '2', '--sandbox', 'bwrap', '--out', out, '--json'],
        {
          attempts: 12,
        },
      );
      expect(result.status, result.stderr).toBe(0);
      const { report, dir } = readReport(out, result.stdout);
      expect(report).toMatchObject({
        schemaVersion: 1,
        registry: { name: 'crucible-examples', version: '1.0.0', file: 'examples/registry.yaml' },
        runs: 2,
        conform: true,
      });
      expect(report.runDir).toBe(`validate/${report.id}`);
      expect(report.families.map((f) => [f.id, f.tasks.map((t) => t.taskId)])).toEqual([
        ['js-node-test', ['js-slugify']],
        ['py-pytest', ['py-median']],
      ]);
      const seen = report.families.flatMap((f) =>
        f.tasks.flatMap((t) => t.agents.map((a) => [t.taskId, a.agent, a.trials, a.outcomes.map((o) => `${o.verdict} ${o.cause}`)])),
      );
      expect(seen).toEqual([
        ['js-slugify', 'oracle', 2, ['PASS passed']],
        ['js-slugify', 'nop', 2, ['FAIL no_changes']],
        ['js-slugify', 'tamper', 2, ['FAIL tampered']],
        ['py-median', 'oracle', 2, ['PASS passed']],
        ['py-median', 'nop', 2, ['FAIL no_changes']],
        ['py-median', 'secret-leak', 2, ['FAIL policy_violation']],
      ]);
      // The files under <out>/audit/<id>/ say the same as stdout.
      const { dir: _dir, ...written } = report;
      expect(JSON.parse(readFileSync(join(dir, 'audit.json'), 'utf8'))).toEqual(written);
      expect(readFileSync(join(dir, 'audit.md'), 'utf8')).toContain(`# Audit ${report.id}: conforms`);
      expect(existsSync(join(out, report.runDir, 'plan.json'))).toBe(true);
    },
    attemptBudget(12),
  );

  it(
    'reports a contract the oracle does not meet as a departure, expected vs seen, and exits 1',
    async () => {
      const out = tempDir();
      const registry = join(tempDir(), 'registry.yaml');
      writeFileSync(
        registry,
        'registry: wrong\nversion: 0.1.0\nfamilies:\n  - id: slug\n    version: 0.1.0\n    tasks: [js-slugify]\n    contract:\n      oracle: { verdict: FAIL, cause: tests_failed, must_fail: [tests] }\n',
      );
      const result = await runCli(['audit', 'examples/tasks.yaml', '--registry', registry, '--runs', '1', '--sandbox', 'bwrap', '--out', out], { attempts: 2 });
      expect(result.status, result.stderr).toBe(1);
      // Tasks no family selects are named, not run.
      expect(result.stderr).toContain('not in any family, not audited: js-sortby, js-csv-quoting, ts-lru-recency, py-median, py-roman-subtractive');
      expect(result.stdout).toMatch(
        /departs\s+slug\s+js-slugify\s+oracle\s+FAIL tests_failed; fail: tests\s+PASS passed ×1\/1\s+verdict: expected FAIL, seen PASS in 1\/1; cause: expected tests_failed, seen passed in 1\/1; check tests: expected failed, seen passed in 1\/1/,
      );
      expect(result.stdout).toMatch(/conform\s+slug\s+js-slugify\s+nop/);
      expect(result.stdout).toContain('1 of 1 tasks depart from the contract, 0 unstable');
      const id = /report in \S*audit\/(\S+)/.exec(result.stdout)?.[1] ?? '';
      const report = JSON.parse(readFileSync(join(out, 'audit', id, 'audit.json'), 'utf8')) as AuditReport;
      expect(report.conform).toBe(false);
      expect(report.families[0]?.tasks[0]?.agents[0]?.departures).toEqual([
        { field: 'verdict', expected: 'FAIL', seen: 'PASS', count: 1, of: 1 },
        { field: 'cause', expected: 'tests_failed', seen: 'passed', count: 1, of: 1 },
        { field: 'check', check: 'tests', expected: 'failed', seen: 'passed', count: 1, of: 1 },
      ]);
      expect(readFileSync(join(out, 'audit', id, 'audit.md'), 'utf8')).toContain(
        '| js-slugify | oracle | departs | FAIL tests_failed; fail: tests | PASS passed ×1/1 |',
      );
    },
    attemptBudget(2),
  );

  it('refuses bad options before any attempt, one line with the fix, exit 2', async () => {
    const out = tempDir();
    const registry = join(tempDir(), 'registry.yaml');
    writeFileSync(registry, 'registry: one\nversion: 1.0.0\nfamilies:\n  - id: slug\n    version: 1.0.0\n    tasks: [js-slugify]\n');
    const runs = await runCli(['audit', 'examples/tasks.yaml', '--runs', '0', '--out', out]);
    expect([runs.status, runs.stderr.trim()]).toEqual([2, 'error --runs 0: expected a whole number ≥ 1 (fix: e.g. --runs 3)']);
    const outside = await runCli(['audit', 'examples/tasks.yaml', '--registry', registry, '--task', 'py-median', '--out', out]);
    expect([outside.status, outside.stderr.trim()]).toEqual([
      2,
      `error --task py-median: in no family of ${registry} (fix: add it to a family's tasks, or leave it out)`,
    ]);
    expect(existsSync(join(out, 'validate'))).toBe(false);
  });

  it('routes a .zip argument to the pack importer and surfaces its failure as one message, before any attempt', async () => {
    const out = tempDir();
    const archive = join(tempDir(), 'bench.crucible.zip');
    writeFileSync(archive, 'not a zip archive');
    const result = await runCli(['audit', archive, '--out', out]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`cannot import pack ${archive}: `);
    expect(existsSync(join(out, 'validate'))).toBe(false);
    expect(existsSync(join(out, 'audit'))).toBe(false);
  });

  it('with --trust, refuses a pack without the signatures the policy requires (exit 1) before any attempt', async () => {
    const work = tempDir();
    const out = join(work, '.crucible');
    const archive = join(work, 'bench.crucible.zip');
    expect((await runCli(['pack', 'create', 'examples/tasks.yaml', '-o', archive])).status).toBe(0);
    const generated = await runCli(['keys', 'generate', '-o', join(work, 'keys')]);
    expect(generated.status, generated.stderr).toBe(0);
    const pub = readdirSync(join(work, 'keys')).find((f) => f.endsWith('.pub.pem')) ?? '';
    const id = pub.replace(/\.pub\.pem$/, '');
    const trust = join(work, 'trust.yaml');
    writeFileSync(trust, stringify({ trusted_keys: [{ id, public_key: readFileSync(join(work, 'keys', pub), 'utf8') }], required: 1 }));
    const result = await runCli(['audit', archive, '--trust', trust, '--out', out]);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(`cannot import pack ${archive}: `);
    expect(result.stderr).toMatch(/the trust policy requires 1/);
    expect(existsSync(join(out, 'validate'))).toBe(false);
  });
});
