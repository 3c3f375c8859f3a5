import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeRun, type RunOutcome } from '../../src/engine/index.js';
import { exportSweBench, sweBenchFileNames, writeSweBenchExport } from '../../src/features/grade/export-swe-bench.js';
import { gradeRunOptions } from '../../src/features/grade/options.js';
import { loadRunInput } from '../../src/features/suite/index.js';
import { parse as parseYaml } from 'yaml';
import { exportCommand } from '../../src/cli/commands/export.js';
import { readPredictions } from '../../src/features/grade/predictions.js';
import { attemptBudget } from '../helpers/budget.js';
import { captureIo } from '../helpers/cli.js';

/*
 * One real grading run, shared by the tests below: a task whose environment is broken for one
 * pass-to-pass test (it fails at the baseline and after any fix), graded on a hand-written patch
 * that fixes the bug. Crucible's verdict excuses the broken test; SWE-bench's rule does not.
 */

/** Every key SWE-bench's harness writes in its run report (swebench/harness/reporting.py, make_run_report), in its order. */
const SWE_BENCH_REPORT_KEYS = [
  'total_instances',
  'submitted_instances',
  'completed_instances',
  'resolved_instances',
  'unresolved_instances',
  'infra_failure_instances',
  'ambiguous_failure_instances',
  'empty_patch_instances',
  'error_instances',
  'completed_ids',
  'incomplete_ids',
  'empty_patch_ids',
  'submitted_ids',
  'resolved_ids',
  'unresolved_ids',
  'infra_failure_ids',
  'ambiguous_failure_ids',
  'failure_reasons',
  'error_ids',
  'schema_version',
];

/** A submitted patch as a person writes it: no `diff --git` or `index` line, unlike git's own diff of the change. */
const FIX = '--- a/src/add.mjs\n+++ b/src/add.mjs\n@@ -1 +1 @@\n-export function add(a, b) { return a - b; }\n+export function add(a, b) { return a + b; }\n';

let root: string;
let outcome: RunOutcome;

function writeTaskSet(dir: string): string {
  mkdirSync(join(dir, 'calc/src'), { recursive: true });
  mkdirSync(join(dir, 'calc/test'), { recursive: true });
  writeFileSync(join(dir, 'calc/src/add.mjs'), 'export function add(a, b) { return a - b; }\n');
  writeFileSync(
    join(dir, 'calc/test/add.test.mjs'),
    [
      "import { describe, it } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { add } from '../src/add.mjs';",
      "describe('add', () => {",
      "  it('adds', () => assert.equal(add(2, 3), 5));",
      "  it('is a function', () => assert.equal(typeof add, 'function'));",
      '});',
      "describe('env', () => {",
      "  it('has the tool', () => assert.ok(process.env.CRUCIBLE_TEST_NO_SUCH_TOOL, 'the environment lacks the tool'));",
      '});',
      '',
    ].join('\n'),
  );
  const file = join(dir, 'tasks.yaml');
  writeFileSync(
    file,
    [
      'tasks:',
      '  - id: calc-add',
      '    repo: { path: calc }',
      '    instruction: add subtracts; make it add.',
      '    tests:',
      '      command: node --test --test-reporter=junit --test-reporter-destination="$CRUCIBLE_JUNIT" test/*.test.mjs',
      "      fail_to_pass: ['add > adds']",
      "      pass_to_pass: ['add > is a function', 'env > has the tool']",
      '    policy: { allowed_paths: [src/**] }',
      '',
    ].join('\n'),
  );
  return file;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-swe-export-'));
  const taskSet = writeTaskSet(root);
  const predictions = join(root, 'preds.jsonl');
  writeFileSync(predictions, `${JSON.stringify({ instance_id: 'calc-add', model_name_or_path: 'acme/fixer', model_patch: FIX })}\n`);
  const { options } = gradeRunOptions({ input: loadRunInput(taskSet), predictions, stateDir: join(root, 'state'), sandbox: 'bwrap', concurrency: 1 });
  outcome = await executeRun(options);
}, attemptBudget(1));

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('crucible export --format swe-bench', () => {
  it('writes every key of the current harness report, resolved by SWE-bench rule while Crucible, excusing the test broken at the baseline, passes it', async () => {
    expect(outcome.attempts.map((a) => `${a.verdict} ${a.cause}`)).toEqual(['PASS passed']);
    const result = await exportSweBench(outcome.runDir, outcome.summary.runId);
    const [e] = result.exports;
    expect(Object.keys(e?.report ?? {})).toEqual(SWE_BENCH_REPORT_KEYS);
    expect(e?.report).toMatchObject({
      total_instances: 1,
      submitted_instances: 1,
      completed_instances: 1,
      resolved_instances: 0,
      unresolved_instances: 1,
      unresolved_ids: ['calc-add'],
      resolved_ids: [],
      incomplete_ids: [],
      infra_failure_ids: [],
      failure_reasons: {},
      schema_version: 2,
    });
    expect(e?.resolvedBy).toEqual({ 'swe-bench': [], crucible: ['calc-add'] });
    expect(result.totalFrom).toEqual({ kind: 'run' });
    // SWE-bench's per-instance report.json: the broken test is this instance's PASS_TO_PASS failure.
    expect(e?.instances[0]?.report).toEqual({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: false,
      infra_failure: false,
      tests_status: {
        FAIL_TO_PASS: { success: ['add > adds'], failure: [] },
        PASS_TO_PASS: { success: ['add > is a function'], failure: ['env > has the tool'] },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
    });
  });

  it('exports the submitted patch byte for byte, not the captured diff, and counts total_instances from --dataset', async () => {
    const dataset = join(root, 'dataset.jsonl');
    writeFileSync(dataset, ['calc-add', 'other__repo-1', 'other__repo-2'].map((id) => JSON.stringify({ instance_id: id, repo: 'x/y' })).join('\n'));
    const result = await exportSweBench(outcome.runDir, outcome.summary.runId, { dataset });
    const out = join(root, 'export');
    await writeSweBenchExport(out, outcome.summary.runId, result);
    const names = sweBenchFileNames('acme/fixer', outcome.summary.runId);
    const line = readFileSync(join(out, names.predictions), 'utf8');
    expect(JSON.parse(line)).toEqual({ instance_id: 'calc-add', model_name_or_path: 'acme/fixer', model_patch: FIX });
    const captured = readFileSync(join(outcome.runDir, 'attempts', outcome.attempts[0]?.attemptId as string, 'diff.patch'), 'utf8');
    expect(captured).not.toBe(FIX);
    const report = JSON.parse(readFileSync(join(out, names.report), 'utf8')) as Record<string, unknown>;
    expect(report).toMatchObject({ total_instances: 3, submitted_instances: 1, incomplete_ids: ['other__repo-1', 'other__repo-2'] });
    const resolution = JSON.parse(readFileSync(join(out, names.resolution), 'utf8')) as Record<string, unknown>;
    expect(resolution).toMatchObject({
      report_rule: 'swe-bench',
      resolved_ids: { 'swe-bench': [], crucible: ['calc-add'] },
      resolved_only_by_crucible: ['calc-add'],
      total_instances_from: `dataset ${dataset}`,
    });
  });

  it('refuses a dataset file without instance ids, naming the file and line', async () => {
    const dataset = join(root, 'bad.jsonl');
    writeFileSync(dataset, '{"instance_id": "a"}\n{"repo": "x"}\n');
    await expect(exportSweBench(outcome.runDir, outcome.summary.runId, { dataset })).rejects.toThrow(
      `${dataset}:2: instance_id is missing or not a string (fix: every instance names its instance_id)`,
    );
  });
});

/**
 * A submission folder as SWE-bench/experiments documents one (README: evaluation/<split>/<date>_<model>/
 * with all_preds.jsonl, metadata.yaml, README.md, logs/<instance_id>/ and trajs/; swebench.com/submit.html
 * for each instance's logs: eval.sh, patch.diff, report.json, run_instance.log, test_output.txt).
 */
const DOCUMENTED_LAYOUT = {
  files: ['README.md', 'all_preds.jsonl', 'metadata.yaml'],
  dirs: ['logs', 'trajs'],
  instanceLogs: ['eval.sh', 'patch.diff', 'report.json', 'run_instance.log', 'test_output.txt'],
};

/** Every path under `dir`, relative, directories marked with a trailing `/`. */
function tree(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix))
    .sort()
    .flatMap((name) => {
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      return statSync(join(dir, rel)).isDirectory() ? [`${rel}/`, ...tree(dir, rel)] : [rel];
    });
}

describe('crucible export --format swe-bench --submission', () => {
  it('writes the leaderboard folder the experiments repository documents, with the report keys and the submitted patch', async () => {
    const submission = join(root, 'experiments/evaluation/verified');
    const cli = captureIo();
    await exportCommand(outcome.summary.runId, { format: 'swe-bench', submission, out: join(root, 'state'), dir: join(root, 'export-2') }, cli.io);
    const date = outcome.summary.createdAt.slice(0, 10).replace(/-/g, '');
    expect(readdirSync(submission)).toEqual([`${date}_acme__fixer`]);
    const folder = join(submission, `${date}_acme__fixer`);
    const paths = tree(folder);
    for (const f of DOCUMENTED_LAYOUT.files) expect(paths).toContain(f);
    for (const d of DOCUMENTED_LAYOUT.dirs) expect(paths).toContain(`${d}/`);
    expect(paths.filter((p) => p.startsWith('logs/'))).toEqual(['logs/', 'logs/calc-add/', ...DOCUMENTED_LAYOUT.instanceLogs.map((f) => `logs/calc-add/${f}`)]);

    // all_preds.jsonl: SWE-bench's predictions, read back by grade's own reader: the patch as submitted.
    const preds = readPredictions(join(folder, 'all_preds.jsonl'));
    expect(preds.map((p) => [p.taskId, p.model, p.patch])).toEqual([['calc-add', 'acme/fixer', FIX]]);
    expect(readFileSync(join(folder, 'logs/calc-add/patch.diff'), 'utf8')).toBe(FIX);
    const report = JSON.parse(readFileSync(join(folder, 'logs/calc-add/report.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(report)).toEqual(['calc-add']);
    expect(Object.keys(report['calc-add'] ?? {})).toEqual([
      'patch_is_None',
      'patch_exists',
      'patch_successfully_applied',
      'resolved',
      'infra_failure',
      'tests_status',
    ]);
    expect(readFileSync(join(folder, 'logs/calc-add/eval.sh'), 'utf8')).toContain('node --test');

    // metadata.yaml: the fields the repository's checklist asks for, as YAML.
    const metadata = parseYaml(readFileSync(join(folder, 'metadata.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(metadata.info ?? {})).toEqual(['name', 'report', 'site', 'authors', 'logo']);
    expect(metadata.info?.name).toBe('acme/fixer');
    expect(metadata.tags).toMatchObject({ checked: false, model: ['acme/fixer'], os_model: false, os_system: false, system: { attempts: '1' } });
    expect(JSON.parse(readFileSync(join(folder, 'results/results.json'), 'utf8'))).toEqual({ no_generation: [], no_logs: [], resolved: [] });
    const readme = readFileSync(join(folder, 'README.md'), 'utf8');
    expect(readme).toContain('resolved: 0 of 1 (0.00%)');
    expect(readme).toContain("resolved by Crucible's rule, which excuses tests already broken at the baseline: 1");

    // A grading run keeps no trajectory: the folder says so, and so does the command.
    expect(paths.filter((p) => p.startsWith('trajs/'))).toEqual(['trajs/']);
    expect(cli.stderr()).toContain('no trajectory was kept for 1 instance(s)');
    expect(cli.stdout()).toContain("resolved by SWE-bench's rule (the report's): 0; by Crucible's, which excuses tests broken at the baseline: 1");
  });
});
