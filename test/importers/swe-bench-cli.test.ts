/**
 * `crucible import swe-bench` end to end, offline: the sample instances (examples/swe-bench) over
 * the local mirror make-repo.sh builds, imported and validated under bwrap (nop fails, the gold
 * patch passes 3/3, with the test patch applied only at evaluation); and every kind of bad input
 * refused with one line and exit 2.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const SAMPLE = resolve('examples/swe-bench/instances.jsonl');
const MAKE_REPO = resolve('examples/swe-bench/make-repo.sh');

function mirrors(): string {
  const dir = tempDir();
  execFileSync('sh', [MAKE_REPO, dir]);
  return dir;
}

function sampleRows(): Array<Record<string, unknown>> {
  return readFileSync(SAMPLE, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function expectOneLineError(result: { status: number | null; stderr: string }, pattern: RegExp): void {
  expect(result.status).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

describe('crucible import swe-bench on the sample', () => {
  it('make-repo.sh rebuilds the commit the sample instances name', async () => {
    const repos = mirrors();
    const head = execFileSync('git', ['-C', join(repos, 'example__calc'), 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(sampleRows().map((r) => r.base_commit)).toEqual([head, head]);
  });

  it(
    'imports tasks that validate under bwrap, with the tests hidden from the agent',
    async () => {
      const repos = mirrors();
      const out = join(tempDir(), 'imported');
      const imported = await runCli(['import', 'swe-bench', SAMPLE, '--repos', repos, '-o', out, '--environment', 'none']);
      expect(imported.stderr).toBe('');
      expect(imported.status).toBe(0);
      expect(imported.stdout).toContain(`wrote 2 tasks to ${join(out, 'tasks.yaml')}`);
      const taskSet = readFileSync(join(out, 'tasks.yaml'), 'utf8');
      expect(taskSet).toContain('- tests.test_calc::test_median_even[values0-2.5]');
      expect(taskSet).toContain('- tests.test_calc.TestMedian::test_even_pair');
      expect(taskSet).not.toContain('environment:');
      expect(readFileSync(join(out, 'oracle', 'example__calc-1.patch'), 'utf8')).toBe(sampleRows()[0]?.patch);
      // The repo the agent gets is base_commit, which has none of the test patch's tests.
      const base = execFileSync('git', ['-C', join(repos, 'example__calc'), 'show', 'HEAD:tests/test_calc.py'], { encoding: 'utf8' });
      expect(base).not.toContain('test_median_even');

      const validated = await runCli(['validate', join(out, 'tasks.yaml'), '-o', join(out, '.crucible')], { attempts: 8 });
      expect(validated.stdout).toMatch(/valid\s+example__calc-1\s+fails 2\/2\s+passes 3\/3/);
      expect(validated.stdout).toMatch(/valid\s+example__calc-2\s+fails 1\/1\s+passes 3\/3/);
      expect(validated.status).toBe(0);
    },
    attemptBudget(8),
  );

  it('points at SWE-bench images and GitHub by default', async () => {
    const out = join(tempDir(), 'imported');
    const result = await runCli(['import', 'swe-bench', SAMPLE, '--ids', 'example__calc-2', '-o', out]);
    expect(result.status).toBe(0);
    const taskSet = readFileSync(join(out, 'tasks.yaml'), 'utf8');
    expect(taskSet).toContain('git: https://github.com/example/calc.git');
    expect(taskSet).toContain('image: swebench/sweb.eval.x86_64.example_1776_calc-2:latest');
    expect(taskSet).toContain('pull: missing');
    expect(taskSet).not.toContain('example__calc-1');
    expect(result.stdout).toContain('--sandbox docker');
  });
});

describe('crucible import swe-bench refuses bad input with one line and exit 2', () => {
  function instancesFile(lines: string[]): string {
    const file = join(tempDir(), 'instances.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }
  const good = (): Record<string, unknown> => ({ ...sampleRows()[0] });

  it('a malformed line, by file and line', async () => {
    const file = instancesFile([JSON.stringify(good()), '{"instance_id": "x",']);
    expectOneLineError(await runCli(['import', 'swe-bench', file, '-o', join(tempDir(), 'o')]), new RegExp(`${file}:2: not valid JSON`));
  });

  it('a missing field', async () => {
    const { test_patch: _dropped, ...row } = good();
    const file = instancesFile([JSON.stringify(row)]);
    expectOneLineError(await runCli(['import', 'swe-bench', file, '-o', join(tempDir(), 'o')]), /:1: example__calc-1: field test_patch is missing \(fix: /);
  });

  it('an unknown id in --ids, with the near match', async () => {
    expectOneLineError(
      await runCli(['import', 'swe-bench', SAMPLE, '--ids', 'example__calc-1,example__cal-2', '-o', join(tempDir(), 'o')]),
      /--ids: no instance example__cal-2 in the file \(fix: did you mean example__calc-2\?\)/,
    );
  });

  it('a patch path that escapes the repo, and writes nothing', async () => {
    const row = good();
    row.patch = String(row.patch).replace(/calc\/__init__\.py/g, '../../outside.py');
    const out = join(tempDir(), 'o');
    expectOneLineError(
      await runCli(['import', 'swe-bench', instancesFile([JSON.stringify(row)]), '-o', out]),
      /example__calc-1: patch: path "\.\.\/\.\.\/outside\.py" escapes/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a missing mirror under --repos, naming the clone to make', async () => {
    expectOneLineError(
      await runCli(['import', 'swe-bench', SAMPLE, '--repos', tempDir(), '-o', join(tempDir(), 'o')]),
      /no mirror example__calc for example__calc-1 \(fix: git clone --mirror https:\/\/github.com\/example\/calc.git /,
    );
  });

  it('an instance of a repo with its own test runner: skipped with a note, refused when --ids names it', async () => {
    const django = { ...good(), instance_id: 'django__django-1', FAIL_TO_PASS: JSON.stringify(['test_and (expressions.tests.CombinableTests)']) };
    const file = instancesFile([JSON.stringify(good()), JSON.stringify(django)]);
    const out = join(tempDir(), 'o');
    const skipped = await runCli(['import', 'swe-bench', file, '-o', out]);
    expect(skipped.status).toBe(0);
    expect(skipped.stdout).toContain('wrote 1 task to');
    expect(skipped.stdout).toMatch(
      /skipped 1:\n {2}django__django-1 \(.*:2\): test id "test_and \(expressions\.tests\.CombinableTests\)" is not a pytest node id/,
    );
    expectOneLineError(
      await runCli(['import', 'swe-bench', file, '--ids', 'django__django-1', '-o', join(tempDir(), 'o')]),
      /:2: django__django-1: .* \(fix: leave it out of --ids\)/,
    );
  });

  it('an existing output directory unless --force, and a symlink planted in it even then', async () => {
    const out = tempDir();
    writeFileSync(join(out, 'keep.txt'), 'x');
    expectOneLineError(await runCli(['import', 'swe-bench', SAMPLE, '-o', out]), /exists and is not empty \(fix: .*--force/);
    expect((await runCli(['import', 'swe-bench', SAMPLE, '-o', out, '--force'])).status).toBe(0);

    const outside = tempDir();
    const planted = tempDir();
    mkdirSync(join(planted, 'x'));
    symlinkSync(outside, join(planted, 'oracle'));
    expectOneLineError(await runCli(['import', 'swe-bench', SAMPLE, '-o', planted, '--force']), /oracle is a symlink/);
    expect(existsSync(join(outside, 'example__calc-1.patch'))).toBe(false);
  });
});
