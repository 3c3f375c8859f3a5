import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectRunner } from '../../src/features/authoring/init-detect.js';
import { sniffOutput } from '../../src/features/authoring/report-sniff.js';
import { runCli } from '../helpers/cli.js';
import { attemptBudget } from '../helpers/budget.js';
import { gitProject, TAPE_LIKE_HARNESS, writeFiles } from '../helpers/git-project.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** left-pad's shape: a tape-style test printing TAP through `npm test`, no JUnit anywhere. */
function tapeProject(): string {
  return gitProject(join(tempDir(), 'padder'), {
    'package.json': JSON.stringify({ name: 'padder', version: '1.0.0', type: 'module', scripts: { test: 'node test.mjs' } }),
    'index.mjs': 'export function pad(s, n) { s = String(s); while (s.length <= n) s = " " + s; return s; }\n',
    'harness.mjs': TAPE_LIKE_HARNESS,
    'test.mjs': [
      "import { test } from './harness.mjs';",
      "import { pad } from './index.mjs';",
      "test('pads to the length', (t) => { t.equal(pad('a', 3), '  a', 'three wide'); });",
      "test('leaves long strings', (t) => { t.equal(pad('abcd', 2), 'abcd', 'unchanged'); });",
      '',
    ].join('\n'),
  });
}

describe('crucible init on runners that print per-test results', () => {
  it(
    'a tape-style npm test: the format is confirmed from the TAP output, fail_to_pass filled, and validate accepts the file as written',
    async () => {
      const repo = tapeProject();
      // The fix, uncommitted: it becomes the oracle.
      writeFileSync(join(repo, 'index.mjs'), 'export function pad(s, n) { s = String(s); while (s.length < n) s = " " + s; return s; }\n');
      const state = join(tempDir(), 'state');
      const init = await runCli(['init', '--out', state, '--sandbox', 'bwrap'], { cwd: repo });
      expect(init.stderr).not.toMatch(/error/);
      expect(init.status).toBe(0);
      const text = readFileSync(join(repo, 'crucible.tasks.yaml'), 'utf8');
      expect(text).toContain('      format: tap\n');
      expect(text).toContain('fail_to_pass: ["pads to the length"]');
      // The file's comments survive the fill.
      expect(text).toContain('# Tests that fail before the fix and pass after it');
      expect(init.stdout).toMatch(/failed +pads to the length/);
      expect(init.stdout).toMatch(/passed +leaves long strings/);
      // Next steps run from here as printed, and say what a comparison needs.
      expect(init.stdout).toContain('  crucible validate crucible.tasks.yaml\n');
      expect(init.stdout).toMatch(/at least 6 tasks .* `crucible mine \.`/);
      const validate = await runCli(['validate', 'crucible.tasks.yaml', '--runs', '1', '--out', state, '--sandbox', 'bwrap'], { cwd: repo });
      expect(validate.status).toBe(0);
    },
    attemptBudget(6),
  );

  it(
    'a unittest project runs through pytest; tests --suggest --write fills the lists and keeps the comments',
    async () => {
      const repo = gitProject(join(tempDir(), 'calc'), {
        'calc.py': 'def add(a, b):\n    return a - b\n',
        'tests/test_calc.py': [
          'import unittest',
          'from calc import add',
          'class CalcTest(unittest.TestCase):',
          '    def test_add(self):',
          '        self.assertEqual(add(1, 2), 3)',
          '    def test_zero(self):',
          '        self.assertEqual(add(0, 0), 0)',
          '',
        ].join('\n'),
      });
      writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
      const state = join(tempDir(), 'state');
      const init = await runCli(['init', '--no-tests'], { cwd: repo });
      expect(init.status).toBe(0);
      expect(init.stdout).toContain('test runner unittest');
      const before = readFileSync(join(repo, 'crucible.tasks.yaml'), 'utf8');
      const written = await runCli(['tests', 'crucible.tasks.yaml', '--suggest', '--write', '--out', state, '--sandbox', 'bwrap'], { cwd: repo });
      expect(written.status).toBe(0);
      const after = readFileSync(join(repo, 'crucible.tasks.yaml'), 'utf8');
      // Only the two values changed: every other line, comments included, is as init wrote it.
      const changed = after.split('\n').filter((line) => !before.split('\n').includes(line));
      expect(changed).toEqual(['      fail_to_pass: ["tests.test_calc.CalcTest::test_add"]']);
      const validate = await runCli(['validate', 'crucible.tasks.yaml', '--runs', '1', '--out', state, '--sandbox', 'bwrap'], { cwd: repo });
      expect(validate.status).toBe(0);
    },
    attemptBudget(6),
  );

  it(
    'a run with no report Crucible reads is one line saying what the output is and the line to add, exit 2',
    async () => {
      const repo = gitProject(join(tempDir(), 'quiet'), { 'package.json': JSON.stringify({ scripts: { test: 'echo "3 passing"' } }) });
      const init = await runCli(['init', '--out', join(tempDir(), 'state'), '--sandbox', 'bwrap'], { cwd: repo });
      expect(init.status).toBe(2);
      const errors = init.stderr.split('\n').filter((l) => l.startsWith('error'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /its output is plain text with no per-test results .* it ends with "3 passing" .*add the line `format: tap` under tests: in crucible\.tasks\.yaml\)$/,
      );
      expect(init.stdout + init.stderr).not.toContain('3 passing\n');
    },
    attemptBudget(2),
  );
});

describe('the next steps init prints', () => {
  it('run as printed from where the user stands, and say what a comparison of two agents needs', async () => {
    const repo = tapeProject();
    const init = await runCli(['init', 'padder', '--no-tests'], { cwd: join(repo, '..') });
    expect(init.status).toBe(0);
    expect(init.stdout).toContain('wrote padder/crucible.tasks.yaml');
    expect(init.stdout).toContain('  crucible validate padder/crucible.tasks.yaml\n');
    expect(init.stdout).toContain(
      "comparing two agents needs at least 6 tasks on which their results differ (this set has 1 task); to make more from this repository's history: `crucible mine padder`",
    );
  });
});

describe('detectRunner', () => {
  const repo = (files: Record<string, string>): string => {
    const dir = tempDir();
    writeFiles(dir, files);
    return dir;
  };
  const pkg = (test: string, deps: Record<string, string> = {}): string => JSON.stringify({ scripts: { test }, devDependencies: deps });

  it('reads each JS runner from the script and the dev dependencies, with the format its output is in', () => {
    expect(detectRunner(repo({ 'package.json': pkg('node test.js', { tape: '^5' }) }))).toMatchObject({ runner: 'tape', command: 'npm test', format: 'tap' });
    expect(detectRunner(repo({ 'package.json': pkg('npm run tests-only', { '@ljharb/tape': '1', nyc: '1' }) }))).toMatchObject({
      runner: 'tape',
      format: 'tap',
    });
    // minimist's shape: test delegates to tests-only, with lint before and an audit (network) after.
    const minimist = { test: 'npm run tests-only', 'tests-only': "nyc tape 'test/**/*.js'", pretest: 'npm run lint', posttest: 'aud --production' };
    expect(detectRunner(repo({ 'package.json': JSON.stringify({ scripts: minimist, devDependencies: { tape: '5', nyc: '10' } }) }))).toMatchObject({
      runner: 'tape',
      command: 'npm run tests-only',
      format: 'tap',
    });
    expect(detectRunner(repo({ 'package.json': pkg('mocha test/', { mocha: '10' }) }))).toMatchObject({
      runner: 'mocha',
      command: 'npm test -- --reporter=tap',
      format: 'tap',
    });
    expect(detectRunner(repo({ 'package.json': pkg('eslint . && mocha', { mocha: '10' }), 'yarn.lock': '' }))).toMatchObject({
      command: 'yarn mocha --reporter=tap',
    });
    // mocha 1.x's `mocha` spawns `_mocha` with customFds, which Node 20 ignores: it starts nothing.
    expect(detectRunner(repo({ 'package.json': pkg('mocha --reporter spec --check-leaks test/', { mocha: '~1.8.1' }) }))).toMatchObject({
      runner: 'mocha',
      command: 'npx _mocha --check-leaks test/ --reporter tap',
      format: 'tap',
    });
    expect(detectRunner(repo({ 'package.json': pkg('make test', { mocha: '1.x' }), 'pnpm-lock.yaml': '' }))?.command).toBe('pnpm exec _mocha --reporter tap');
    // The installed version wins over the declared range: setup may have brought a newer one, or an older one.
    const installed = (version: string, declared: string): string | undefined =>
      detectRunner(repo({ 'package.json': pkg('mocha -R dot', { mocha: declared }), 'node_modules/mocha/package.json': JSON.stringify({ version }) }))?.command;
    expect(installed('1.21.5', '*')).toBe('npx _mocha --reporter tap');
    expect(installed('2.0.1', '>=1')).toBe('npm test -- --reporter=tap');
    expect(detectRunner(repo({ 'package.json': pkg('tap test/*.js', { tap: '16' }) }))).toMatchObject({
      runner: 'node-tap',
      command: 'npm test -- --reporter=tap',
    });
    expect(detectRunner(repo({ 'package.json': pkg('ava', { ava: '5' }) }))).toMatchObject({ runner: 'ava', command: 'npm test -- --tap', format: 'tap' });
    // jest writes JUnit only through jest-junit: setup adds it when the project lacks it.
    expect(detectRunner(repo({ 'package.json': pkg('jest', { jest: '29' }), 'package-lock.json': '{}' }))).toMatchObject({
      runner: 'jest',
      setup: ['npm ci --no-audit --no-fund', 'npm install --no-save --no-audit --no-fund jest-junit'],
    });
    expect(detectRunner(repo({ 'package.json': pkg('jest', { jest: '29', 'jest-junit': '16' }) }))?.setup).toEqual(['npm install --no-audit --no-fund']);
    expect(detectRunner(repo({ 'package.json': pkg('node test.js') }))).toMatchObject({ runner: 'npm-script', command: 'npm test', setup: [] });
    expect(detectRunner(repo({ 'package.json': pkg('node --test test/') }))?.command).toContain('--test-reporter=junit');
  });

  it('tells unittest from pytest, and needs no nightly toolchain for cargo', () => {
    const unittest = 'import unittest\nclass T(unittest.TestCase):\n    pass\n';
    expect(detectRunner(repo({ 'tests/test_a.py': unittest }))).toMatchObject({ runner: 'unittest', command: expect.stringContaining('pytest') as string });
    expect(detectRunner(repo({ 'tests/test_a.py': unittest, 'requirements-dev.txt': 'pytest\n' }))).toMatchObject({ runner: 'pytest' });
    expect(detectRunner(repo({ 'Cargo.toml': '' }))).toMatchObject({ command: 'RUSTC_BOOTSTRAP=1 cargo test -- -Z unstable-options --format json' });
  });
});

describe('sniffOutput', () => {
  it('names the stream format an output is in, and what it looks like when none', () => {
    expect(sniffOutput('> x@1 test\n> node test\n\nTAP version 13\n# a\nok 1 works\n\n1..1\n# tests 1\n')).toEqual({
      format: 'tap',
      looksLike: 'a TAP stream (plan 1..1, 1 test point)',
    });
    expect(sniffOutput('{"Action":"run","Package":"x","Test":"TestA"}\n').format).toBe('go-json');
    expect(sniffOutput('{ "type": "suite", "event": "started", "test_count": 1 }\n').format).toBe('cargo-json');
    expect(sniffOutput('=== short test summary info ===\nPASSED t.py::a\n=== 1 passed in 0.01s ===\n').format).toBe('pytest');
    expect(sniffOutput('ok so far\nall good\n')).toEqual({ looksLike: expect.stringContaining('it ends with "all good"') as string });
    expect(sniffOutput('')).toEqual({ looksLike: 'empty' });
  });
});
