import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { attemptBudget } from '../helpers/budget.js';
import { commitFiles, gitProject } from '../helpers/git-project.js';
import { useTempDirs } from '../helpers/tmp.js';
import type { MineSummary } from '../../src/features/authoring/index.js';
import { instructionMessage, writeInstruction } from '../../src/features/authoring/mine-instruction.js';
import { templateWriter } from '../../src/features/authoring/mine-writer.js';

const tempDir = useTempDirs();
/** Enough repetitions that a test passing half the time shows it on some side: it looks steady on both with probability 2^-14. */
const RUNS = 8;

const MATH_BUGGY = [
  'export const add = (a, b) => a + b;',
  'export const clamp = (x, lo, hi) => (x < lo ? lo : x);',
  'export const sign = (x) => (x > 0 ? 1 : -1);',
  '',
].join('\n');

/**
 * A history with one commit of each kind: a fix with its tests, a docs-only commit, a commit whose
 * new test passes before and after, a fix whose tests include a flaky one, a tests-only commit.
 */
function history(): { repo: string; shas: Record<string, string> } {
  const repo = gitProject(join(tempDir(), 'mathlib'), {
    'package.json': JSON.stringify({ name: 'mathlib', type: 'module', scripts: { test: 'node --test' } }),
    'src/math.mjs': MATH_BUGGY,
    'test/add.test.mjs':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/math.mjs';\ntest('adds', () => assert.equal(add(1, 2), 3));\n",
  });
  const shas: Record<string, string> = {};
  shas.fix = commitFiles(
    repo,
    {
      'src/math.mjs': MATH_BUGGY.replace('(x < lo ? lo : x)', '(x < lo ? lo : x > hi ? hi : x)'),
      'test/clamp.test.mjs':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clamp } from '../src/math.mjs';\ntest('clamp caps values above the range', () => assert.equal(clamp(5, 0, 3), 3, 'clamp(5, 0, 3) must be 3'));\ntest('clamp keeps values inside', () => assert.equal(clamp(2, 0, 3), 2));\n",
    },
    'Fix clamp above the range\n\nclamp returned values above hi unchanged.\n\nSigned-off-by: t <t@t>',
  );
  shas.docs = commitFiles(repo, { 'README.md': '# mathlib\n\nclamp(x, lo, hi) keeps x in [lo, hi].\n' }, 'Document clamp');
  shas.steady = commitFiles(
    repo,
    {
      'src/math.mjs': readFileSync(join(repo, 'src/math.mjs'), 'utf8').replace('(a, b) => a + b', '(a, b) => b + a'),
      'test/add.test.mjs': `${readFileSync(join(repo, 'test/add.test.mjs'), 'utf8')}test('adds negatives', () => assert.equal(add(-1, -2), -3));\n`,
    },
    'Refactor add',
  );
  shas.flaky = commitFiles(
    repo,
    {
      'src/math.mjs': readFileSync(join(repo, 'src/math.mjs'), 'utf8').replace('(x > 0 ? 1 : -1)', '(x > 0 ? 1 : x < 0 ? -1 : 0)'),
      'test/sign.test.mjs':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sign } from '../src/math.mjs';\ntest('sign of zero is zero', () => assert.equal(sign(0), 0));\ntest('sign is quick', () => assert.ok(Math.random() < 0.5, 'took too long'));\n",
    },
    'Make sign of zero zero',
  );
  shas.testsOnly = commitFiles(
    repo,
    { 'test/add.test.mjs': `${readFileSync(join(repo, 'test/add.test.mjs'), 'utf8')}test('adds zero', () => assert.equal(add(0, 5), 5));\n` },
    'More add tests',
  );
  return { repo, shas };
}

describe('crucible mine', () => {
  it(
    'keeps exactly the fix with tests, drops the others with their reason, and gives the same set when run again',
    async () => {
      const { repo, shas } = history();
      const state = join(tempDir(), 'state');
      const args = ['mine', '--dest', 'mined', '--runs', String(RUNS), '--out', state, '--sandbox', 'bwrap'];
      const first = await runCli(args, { cwd: repo });
      expect(first.stderr).not.toMatch(/^error/m);
      expect(first.status).toBe(0);
      const summary = JSON.parse(readFileSync(join(repo, 'mined/mine.json'), 'utf8')) as MineSummary;
      const verdicts = Object.fromEntries(summary.entries.map((e) => [e.sha, e.status === 'kept' ? 'kept' : e.reason]));
      expect(verdicts).toMatchObject({
        [shas.fix as string]: 'kept',
        [shas.docs as string]: 'docs only: no test and no code change',
        [shas.steady as string]: expect.stringMatching(/^no test fails before the fix and passes after it/) as string,
        [shas.flaky as string]: expect.stringMatching(/^flaky: "sign is quick" (before|with) the fix passed \d of 8 runs$/) as string,
        [shas.testsOnly as string]: 'tests only: no fix to make the oracle',
      });
      expect(summary.entries).toHaveLength(6); // and the root commit, which has no parent
      expect(summary.kept).toBe(1);

      const tasks = readFileSync(join(repo, 'mined/tasks.yaml'), 'utf8');
      const id = `fix-clamp-above-the-range-${(shas.fix as string).slice(0, 7)}`;
      expect(tasks).toContain(`- id: ${id}`);
      expect(tasks).toContain('fail_to_pass:\n        - clamp caps values above the range');
      // The instruction: the commit's subject and body, the failing test and its assertion message; no trailer, no fix.
      expect(tasks).toContain('Fix clamp above the range.');
      expect(tasks).toContain('clamp(5, 0, 3) must be 3');
      expect(tasks).not.toContain('Signed-off-by');
      expect(tasks).not.toContain('x > hi ? hi');
      expect(readFileSync(join(repo, `mined/oracle/${id}.patch`), 'utf8')).toContain('+export const clamp = (x, lo, hi) => (x < lo ? lo : x > hi ? hi : x);');
      // The starting point has the commit's test and the parent's code.
      expect(readFileSync(join(repo, `mined/repos/${id}/test/clamp.test.mjs`), 'utf8')).toContain('clamp caps values above the range');
      expect(readFileSync(join(repo, `mined/repos/${id}/src/math.mjs`), 'utf8')).toBe(MATH_BUGGY);
      // The table says the same, and the next steps run from here.
      expect(first.stdout).toMatch(new RegExp(`${(shas.docs as string).slice(0, 7)} +dropped +Document clamp +docs only`));
      expect(first.stdout).toContain('  crucible validate mined/tasks.yaml\n');
      expect(first.stdout).toMatch(/at least 6 tasks/);

      const second = await runCli(args, { cwd: repo });
      expect(second.status).toBe(0);
      expect(second.stderr).toContain('(from the earlier run)');
      expect(readFileSync(join(repo, 'mined/tasks.yaml'), 'utf8')).toBe(tasks);

      // A writer rewrites the instructions from the stored verdicts: nothing is judged again.
      const style = join(tempDir(), 'style.md');
      writeFileSync(style, 'Our house style. {{problem}}\n\nFailing now:\n{{failing_tests}}\n');
      const written = await runCli([...args, '--writer', `template:${style}`], { cwd: repo });
      expect(written.status).toBe(0);
      expect(written.stderr).not.toMatch(/running the tests/);
      const rewritten = readFileSync(join(repo, 'mined/tasks.yaml'), 'utf8');
      expect(rewritten).toContain(
        '      Our house style. Fix clamp above the range.\n\n      Failing now:\n      - `clamp caps values above the range`: clamp(5, 0, 3) must be 3',
      );
      expect(rewritten).not.toContain('clamp returned values above hi unchanged');
      expect(rewritten.replace(/instruction: \|\n(?: {6}.*\n|\n)*/g, '').replace(/^# Instructions are .*$/m, '')).toBe(
        tasks.replace(/instruction: \|\n(?: {6}.*\n|\n)*/g, '').replace(/^# Instructions are .*$/m, ''),
      );

      const validate = await runCli(['validate', 'mined/tasks.yaml', '--runs', '1', '--out', state, '--sandbox', 'bwrap'], { cwd: repo });
      expect(validate.status).toBe(0);
    },
    attemptBudget(2 * RUNS + 6),
  );

  it('refuses to run commit code outside the sandbox, and a directory it did not write', async () => {
    const { repo } = history();
    const local = await runCli(['mine', '--sandbox', 'local', '--out', join(tempDir(), 'state')], { cwd: repo });
    expect(local.status).toBe(2);
    expect(local.stderr).toContain('--sandbox local: crucible mine runs the code of every commit');
    const other = await runCli(['mine', '--dest', 'src', '--out', join(tempDir(), 'state'), '--sandbox', 'bwrap'], { cwd: repo });
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/--dest \S*\/src: not empty and not written by crucible mine/);
    const unknown = await runCli(['mine', '--writer', 'gpt-4o', '--out', join(tempDir(), 'state'), '--sandbox', 'bwrap'], { cwd: repo });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--writer gpt-4o: expected template:FILE or <provider>:<model>');
    const keyless = await runCli(['mine', '--writer', 'anthropic:claude-sonnet-4-5', '--out', join(tempDir(), 'state'), '--sandbox', 'bwrap'], {
      cwd: repo,
      env: { ANTHROPIC_API_KEY: '' },
    });
    expect(keyless.status).toBe(2);
    expect(keyless.stderr).toContain('--writer anthropic:claude-sonnet-4-5: ANTHROPIC_API_KEY is not set');
    const flags = await runCli(['mine', '--writer', 'template:x.md', '--replay', 'tapes', '--out', join(tempDir(), 'state'), '--sandbox', 'bwrap'], {
      cwd: repo,
    });
    expect(flags.status).toBe(2);
    expect(flags.stderr).toContain('--record, --replay and --pricing are for a model writer');
    const missing = await runCli(['mine', '--writer', 'template:nowhere.md', '--out', join(tempDir(), 'state'), '--sandbox', 'bwrap'], { cwd: repo });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--writer template:nowhere.md: cannot read nowhere.md (ENOENT)');
  });
});

describe('writeInstruction', () => {
  it('says the problem from the subject and the failing tests, never the trailers', () => {
    const text = writeInstruction({
      message: 'fix(parser): handle empty input\n\nEmpty input crashed.\n\nCo-authored-by: a <a@a>\nFixes #12',
      failToPass: ['parses empty', 'parses blank'],
      messages: { 'parses empty': 'expected [] to equal null' },
    });
    expect(text).toBe(
      'Parser: handle empty input.\n\nEmpty input crashed.\n\nHow it shows: these tests fail now and must pass once it is fixed, with every other test still passing:\n- `parses empty`: expected [] to equal null\n- `parses blank`\n',
    );
  });
});

describe('instructionMessage', () => {
  it("takes a merge's body, else the newest merged commit's message, never the merge's own subject", () => {
    expect(instructionMessage(['fix a', 'Merge pull request #1 from x/y\n\nmake the third argument work'], 'Merge pull request #1')).toBe(
      'make the third argument work',
    );
    expect(instructionMessage(['fix a', 'Fix max-age rounding\n\nIt was a float.', "Merge tag 'v0.1.5'"], "Merge tag 'v0.1.5'")).toBe(
      'Fix max-age rounding\n\nIt was a float.',
    );
    expect(instructionMessage(['Fix clamp'], 'Fix clamp')).toBe('Fix clamp');
  });

  it('drops a failure message that only repeats the test title', () => {
    expect(writeInstruction({ message: 'Fix serialize', failToPass: ['serialize basic'], messages: { 'serialize basic': 'serialize basic' } })).toContain(
      '- `serialize basic`\n',
    );
  });
});

describe('templateWriter', () => {
  const source = { message: 'Fix median of even lists\n\nIt took the upper middle.', failToPass: ['median of 4'], messages: { 'median of 4': 'expected 2.5' } };

  it('fills the parts and nothing else; an empty body leaves no gap', () => {
    const write = templateWriter('{{ problem }}\n\n{{body}}\n\nTests:\n{{failing_tests}}\n---\n{{drafted}}', 'style.md');
    expect(write(source)).toBe(
      `Fix median of even lists.\n\nIt took the upper middle.\n\nTests:\n- \`median of 4\`: expected 2.5\n---\n${writeInstruction(source).trimEnd()}\n`,
    );
    expect(templateWriter('{{problem}}\n\n{{body}}\n\nSee {{failing_tests}}', 'style.md')({ ...source, message: 'Fix it' })).toBe(
      'Fix it.\n\nSee - `median of 4`: expected 2.5\n',
    );
  });

  it('names an unknown placeholder, and refuses a template with none', () => {
    expect(() => templateWriter('{{problem}} {{diff}}', 'style.md')).toThrow(
      'style.md: unknown placeholder {{diff}} (fix: use {{problem}}, {{body}}, {{failing_tests}}, {{drafted}})',
    );
    expect(() => templateWriter('Fix the bug.', 'style.md')).toThrow(/^style\.md: no placeholder/);
  });
});
