import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prRepo, ROOT, runAction } from './helpers.js';

// The action's script against a CLI that follows the documented `crucible ci` / `crucible gate`
// shape (test/action/fixtures/fake-crucible.mjs); test/action/real-cli.test.ts drives the real one.
const FAKE = join(ROOT, 'test', 'action', 'fixtures', 'fake-crucible.mjs');

let root: string;
let clean: string;
let tampering: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'crucible-action-'));
  clean = prRepo(root, 'clean');
  tampering = prRepo(root, 'edits-test');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function logged(file: string): { args: string[]; cwd: string } {
  return JSON.parse(readFileSync(file, 'utf8')) as { args: string[]; cwd: string };
}

describe('action/run.mjs, mode ci, on a pull request', () => {
  it('a clean PR passes: compares the PR with GITHUB_BASE_REF, sets outputs, leaves the summary to the CLI', () => {
    const log = join(root, 'clean.log');
    const run = runAction(clean, { mode: 'ci' }, { CRUCIBLE_BIN: FAKE, GITHUB_BASE_REF: 'main', FAKE_CRUCIBLE_LOG: log });
    expect(run.code).toBe(0);
    expect(logged(log).args).toEqual(['ci', '--base', 'main', '--head', 'HEAD', '--json']);
    expect(run.outputs).toEqual({
      verdict: 'PASS',
      'pass-rate': '',
      'report-path': join(clean, '.crucible', 'ci', 'ci-fake1'),
      'exit-code': '0',
    });
    // Written once: by the CLI, not again by the script.
    expect(run.summary.match(/## Crucible ci: PASS/g)).toHaveLength(1);
  });

  it('a PR that edits a test fails with exit 1 and the report in the summary', () => {
    const run = runAction(tampering, { mode: 'ci' }, { CRUCIBLE_BIN: FAKE, GITHUB_BASE_REF: 'main' });
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('FAIL');
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.summary).toContain('tampered');
    expect(run.summary).toContain('test/add.test.js');
    expect(existsSync(join(run.outputs['report-path'] ?? '', 'ci.json'))).toBe(true);
  });

  it('allow-failure reports the FAIL but exits 0; exit-code still says 1', () => {
    const log = join(root, 'allow.log');
    const run = runAction(tampering, { mode: 'ci', 'allow-failure': 'true' }, { CRUCIBLE_BIN: FAKE, GITHUB_BASE_REF: 'main', FAKE_CRUCIBLE_LOG: log });
    expect(run.code).toBe(0);
    expect(run.outputs.verdict).toBe('FAIL');
    expect(run.outputs['exit-code']).toBe('1');
    expect(logged(log).args).not.toContain('--allow-failure');
    expect(run.stderr).toContain('allow-failure');
  });

  it('prefers origin/<base> when the checkout has it, as actions/checkout with fetch-depth 0 leaves it', () => {
    const log = join(root, 'origin.log');
    const clone = join(root, 'clone');
    const r = runGit(root, 'clone', '-q', '--no-local', clean, clone);
    expect(r).toBe(0);
    const run = runAction(clone, { mode: 'ci' }, { CRUCIBLE_BIN: FAKE, GITHUB_BASE_REF: 'main', FAKE_CRUCIBLE_LOG: log });
    expect(logged(log).args.slice(0, 3)).toEqual(['ci', '--base', 'origin/main']);
    expect(run.code).toBe(0);
  });

  it('explicit base and head, working-directory, config and extra args reach the CLI', () => {
    const log = join(root, 'explicit.log');
    const run = runAction(
      root,
      { mode: 'ci', base: 'main', head: 'pr', 'working-directory': 'repo-edits-test', config: 'crucible.ci.yaml', 'extra-args': `--out "out dir" --verbose` },
      { CRUCIBLE_BIN: FAKE, FAKE_CRUCIBLE_LOG: log },
    );
    expect(logged(log)).toEqual({
      args: ['ci', '--base', 'main', '--head', 'pr', '--config', 'crucible.ci.yaml', '--out', 'out dir', '--verbose', '--json'],
      cwd: tampering,
    });
    expect(run.outputs['report-path']).toBe(join(tampering, 'out dir', 'ci', 'ci-fake1'));
  });

  it('outside a pull request (no GITHUB_BASE_REF) runs plain `crucible ci` on the working tree', () => {
    const log = join(root, 'push.log');
    runAction(clean, { mode: 'ci' }, { CRUCIBLE_BIN: FAKE, FAKE_CRUCIBLE_LOG: log });
    expect(logged(log).args).toEqual(['ci', '--json']);
  });

  it('writes the report into the summary itself when the CLI did not', () => {
    const run = runAction(tampering, { mode: 'ci' }, { CRUCIBLE_BIN: FAKE, GITHUB_BASE_REF: 'main', FAKE_NO_SUMMARY: '1', FAKE_NOISE: '1' });
    expect(run.outputs.verdict).toBe('FAIL');
    expect(run.summary).toContain('## Crucible ci: FAIL');
    expect(run.summary).toContain('test/add.test.js');
  });
});

describe('action/run.mjs, mode gate', () => {
  it('builds the gate command from task-set, baseline, agents and runs; pass-rate per agent', () => {
    const log = join(root, 'gate.log');
    writeFileSync(join(clean, 'baseline.json'), '{"version":1}');
    const run = runAction(
      clean,
      { mode: 'gate', 'task-set': 'tasks/core.yaml', baseline: 'baseline.json', agents: 'oracle, nop', runs: '3' },
      { CRUCIBLE_BIN: FAKE, FAKE_CRUCIBLE_LOG: log, FAKE_GATE_VERDICT: 'FAIL' },
    );
    expect(logged(log).args).toEqual([
      'gate',
      'tasks/core.yaml',
      '--baseline',
      'baseline.json',
      '--agent',
      'oracle',
      '--agent',
      'nop',
      '--runs',
      '3',
      '--json',
    ]);
    expect(run.code).toBe(1);
    expect(run.outputs['pass-rate']).toBe('oracle=0.75,nop=0.5');
    expect(run.outputs['report-path']).toBe(join(clean, '.crucible', 'gates', 'gate-fake1'));
    expect(run.summary).toContain('## Crucible gate: FAIL');
  });

  it('one agent: pass-rate is its number', () => {
    writeFileSync(join(clean, 'baseline.json'), '{"version":1}');
    const run = runAction(clean, { mode: 'gate', 'task-set': 't.yaml', baseline: 'baseline.json', agents: 'oracle' }, { CRUCIBLE_BIN: FAKE });
    expect(run.code).toBe(0);
    expect(run.outputs['pass-rate']).toBe('0.75');
  });

  it('the CLI refusing its input (exit 2) fails the step even with allow-failure, with its message in the summary', () => {
    const run = runAction(clean, { mode: 'gate', 'task-set': 't.yaml', baseline: 'missing.json', 'allow-failure': 'true' }, { CRUCIBLE_BIN: FAKE });
    expect(run.code).toBe(2);
    expect(run.outputs['exit-code']).toBe('2');
    expect(run.outputs.verdict).toBe('');
    expect(run.summary).toContain('missing.json: no such file');
  });
});

describe('action/run.mjs, invalid inputs exit 2 with one line naming the input', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ mode: 'deploy' }, /input mode: expected ci or gate, got 'deploy'/],
    [{ mode: 'gate', baseline: 'b.json' }, /input task-set: required/],
    [{ mode: 'gate', 'task-set': 't.yaml' }, /input baseline: required/],
    [{ mode: 'gate', 'task-set': 't.yaml', baseline: 'b.json', runs: 'many' }, /input runs: expected a whole number/],
    [{ mode: 'ci', 'allow-failure': 'yes' }, /input allow-failure: expected true or false/],
    [{ mode: 'ci', 'extra-args': `--out "x` }, /input extra-args: unclosed " quote/],
    [{ mode: 'ci', 'working-directory': 'nowhere' }, /input working-directory: .*nowhere is not a directory/],
  ];
  it.each(cases)('%j', (inputs, message) => {
    const log = join(root, 'never.log');
    const run = runAction(clean, inputs, { CRUCIBLE_BIN: FAKE, FAKE_CRUCIBLE_LOG: log });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.outputs['exit-code']).toBe('2');
    expect(run.summary).toMatch(message);
    expect(existsSync(log)).toBe(false);
  });

  it('a base branch the checkout does not have names the fix', () => {
    const run = runAction(clean, { mode: 'ci' }, { CRUCIBLE_BIN: FAKE, GITHUB_BASE_REF: 'release' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/GITHUB_BASE_REF is release .*fetch-depth: 0/);
  });
});

function runGit(cwd: string, ...args: string[]): number {
  return spawnSync('git', args, { cwd, stdio: 'ignore' }).status ?? -1;
}

describe('action.yml', () => {
  interface ActionFile {
    inputs: Record<string, { default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: { id?: string; env?: Record<string, string>; run?: string }[] };
  }
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionFile;
  const step = action.runs.steps.find((s) => s.id === 'crucible');
  const script = readFileSync(join(ROOT, 'action', 'run.mjs'), 'utf8');

  it('is a composite action whose script step receives every input (except the install version) as INPUT_*', () => {
    expect(action.runs.using).toBe('composite');
    expect(step?.run).toContain('action/run.mjs');
    for (const name of Object.keys(action.inputs)) {
      if (name === 'crucible-version') continue;
      expect(step?.env?.[`INPUT_${name.toUpperCase().replaceAll('-', '_')}`], name).toBe(`\${{ inputs.${name} }}`);
      expect(script, `run.mjs reads ${name}`).toContain(`'${name}'`);
    }
  });

  it('exposes the outputs the script writes', () => {
    expect(Object.keys(action.outputs).sort()).toEqual(['exit-code', 'pass-rate', 'report-path', 'verdict']);
    for (const [name, output] of Object.entries(action.outputs)) expect(output.value).toBe(`\${{ steps.crucible.outputs.${name} }}`);
  });
});
