import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyShadowSource } from '../../src/domain/redteam/module-shadow.js';
import { runCli } from '../helpers/cli.js';
import { git } from '../helpers/git.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** Two JUnit cases: check::fixed passes once value.txt says right, check::kept while keep.txt says ok. */
const CHECK_SH = [
  'fixed=""; grep -q right value.txt || fixed="<failure message=\\"value is wrong\\"/>"',
  'kept=""; grep -q ok keep.txt || kept="<failure message=\\"keep broke\\"/>"',
  'printf \'<testsuite name="s" tests="2"><testcase classname="check" name="fixed">%s</testcase><testcase classname="check" name="kept">%s</testcase></testsuite>\' "$fixed" "$kept" > "$CRUCIBLE_JUNIT"',
  '[ -z "$fixed$kept" ]',
  '',
].join('\n');

const CONFIG = ['tests:', '  command: sh tests/check.sh', '  fail_to_pass: [check::fixed]', 'policy:', '  secrets: { presets: [all] }', ''].join('\n');

/** A repo on main with a bug (value.txt says wrong) and a test for it; the state directory lives outside it. */
function repo(checkSh = CHECK_SH, config = CONFIG): { dir: string; out: string } {
  const dir = join(tempDir(), 'repo');
  const out = join(tempDir(), 'state');
  git(tempDir(), 'init', '-q', '-b', 'main', dir);
  writeFileSync(join(dir, 'value.txt'), 'wrong\n');
  writeFileSync(join(dir, 'keep.txt'), 'ok\n');
  spawnSync('mkdir', [join(dir, 'tests')]);
  writeFileSync(join(dir, 'tests', 'check.sh'), checkSh);
  writeFileSync(join(dir, 'crucible.ci.yaml'), config);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base');
  return { dir, out };
}

function branch(dir: string, name: string, files: Record<string, string>): void {
  git(dir, 'checkout', '-qb', name, 'main');
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', name);
  git(dir, 'checkout', '-q', 'main');
}

/** Every file of the checkout, .git included, with its content hash: what "unchanged" means. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      const info = statSync(join(dir, path));
      if (info.isDirectory()) walk(path);
      else
        files[path] = `${createHash('sha256')
          .update(readFileSync(join(dir, path)))
          .digest('hex')}:${info.mtimeMs}`;
    }
  };
  walk('');
  return files;
}

interface CiJson {
  id: string;
  verdict: string;
  cause: string;
  reportDir: string;
  head: Record<string, unknown>;
  checks: Array<{ id: string; passed: boolean; message?: string }>;
  diff: { files: Array<{ path: string; kind: string }> };
}

function ciJson(stdout: string): CiJson {
  return JSON.parse(stdout) as CiJson;
}

describe('crucible ci', () => {
  it('fails a PR that edits a test file as tampered (exit 1) and passes a clean PR (exit 0), leaving the checkout as it was', async () => {
    const { dir, out } = repo();
    branch(dir, 'pr', { 'value.txt': 'wrong\n', 'tests/check.sh': `${CHECK_SH}exit 0\n` });
    branch(dir, 'fix', { 'value.txt': 'right\n' });
    const before = snapshot(dir);

    const tampered = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out], { cwd: dir });
    expect(tampered.status, tampered.stderr).toBe(1);
    expect(tampered.stdout).toMatch(/^FAIL tampered: .*tests\/check\.sh/);
    const reportDir = /report: (.*)/.exec(tampered.stdout)?.[1] ?? '';
    for (const file of ['ci.json', 'report.md', 'results.sarif', 'diff.patch']) expect(existsSync(join(reportDir, file)), file).toBe(true);
    const sarif = JSON.parse(readFileSync(join(reportDir, 'results.sarif'), 'utf8')) as { runs: Array<{ results: Array<{ ruleId: string }> }> };
    expect(sarif.runs[0]?.results.map((r) => r.ruleId)).toContain('test_tampering');

    const clean = await runCli(['ci', '--base', 'main', '--head', 'fix', '--out', out, '--json'], { cwd: dir });
    expect(clean.status, clean.stderr).toBe(0);
    const result = ciJson(clean.stdout);
    expect(result).toMatchObject({ verdict: 'PASS', cause: 'passed', head: { ref: 'fix' } });
    expect(result.reportDir.startsWith(join(out, 'ci', result.id))).toBe(true);

    expect(snapshot(dir)).toEqual(before);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    // Both are in the history next to runs, newest first.
    const listed = await runCli(['history', '--kind', 'ci', '--json', '--out', out], { cwd: dir });
    expect(listed.status, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Array<{ id: string; kind: string; verdict: string }>;
    expect(rows.map((r) => [r.kind, r.verdict])).toEqual([
      ['ci', 'PASS'],
      ['ci', 'FAIL'],
    ]);
    expect(rows[0]?.id).toBe(result.id);
    expect(tampered.stderr).not.toContain('could not record');
  });

  it('judges a change whose code leaves a tree deeper than PATH_MAX when its tests run, and clears it', async () => {
    // The test script loads lib.sh when there is one: code the change may bring.
    const { dir, out } = repo(`[ -f lib.sh ] && . ./lib.sh\n${CHECK_SH}`);
    const deep = "python3 -c \"import os\nfor _ in range(2100): os.mkdir('d'); os.chdir('d')\"\n";
    branch(dir, 'deep', { 'value.txt': 'right\n', 'lib.sh': deep });
    const result = await runCli(['ci', '--base', 'main', '--head', 'deep', '--out', out, '--json'], { cwd: dir });
    expect(result.status, result.stderr).toBe(0);
    expect(ciJson(result.stdout)).toMatchObject({ verdict: 'PASS', cause: 'passed' });
  });

  it("stops a change whose code floods HOME while the tests run, at the config's workspace limits: FAIL resource_exceeded", async () => {
    // test_timeout bounds the run; the watchdog stops it long before, or the verdict is another.
    const config = CONFIG.replace('policy:', 'limits: { workspace_files: 300, test_timeout: 120s }\npolicy:');
    const { dir, out } = repo(`[ -f lib.sh ] && . ./lib.sh\n${CHECK_SH}`, config);
    const flood = 'mkdir -p "$HOME/.cache/x"; i=0; while [ $i -lt 1000 ]; do : > "$HOME/.cache/x/f$i"; i=$((i+1)); done; sleep 3600\n';
    branch(dir, 'flood', { 'value.txt': 'right\n', 'lib.sh': flood });
    const result = await runCli(['ci', '--base', 'main', '--head', 'flood', '--out', out, '--json'], { cwd: dir });
    expect(result.status, result.stderr).toBe(1);
    expect(ciJson(result.stdout)).toMatchObject({ verdict: 'FAIL', cause: 'resource_exceeded' });
  });

  it('evaluates the working tree, untracked files included, without changing a byte of it', async () => {
    const { dir, out } = repo();
    writeFileSync(join(dir, 'value.txt'), 'right\n');
    writeFileSync(join(dir, 'notes.txt'), 'untracked\n');
    // git status refreshes the index: asked before the snapshot, not between it and the next.
    const status = git(dir, 'status', '--porcelain');
    const before = snapshot(dir);

    const r = await runCli(['ci', '--out', out, '--json'], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    const result = ciJson(r.stdout);
    expect(result).toMatchObject({ verdict: 'PASS', head: { workingTree: true } });
    expect(result.diff.files.map((f) => `${f.kind} ${f.path}`).sort()).toEqual(['added notes.txt', 'modified value.txt']);

    expect(snapshot(dir)).toEqual(before);
    expect(git(dir, 'status', '--porcelain')).toBe(status);
  });

  it('leaves its own state directory out of the change when it lies inside the checkout', async () => {
    const { dir } = repo();
    writeFileSync(join(dir, 'value.txt'), 'right\n');
    // Twice: the second run finds the first one's reports in the checkout, and must not count them.
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['ci', '--json'], { cwd: dir });
      expect(r.status, r.stderr).toBe(0);
      const result = ciJson(r.stdout);
      expect(result.reportDir.startsWith(join(dir, '.crucible', 'ci'))).toBe(true);
      expect(result.diff.files.map((f) => f.path)).toEqual(['value.txt']);
    }
  });

  it('runs setup in the copy of base; what setup made is not part of the change; a failing setup is exit 2', async () => {
    const { dir, out } = repo();
    // The test reads a file only setup makes: without setup in every copy, check::kept would fail.
    const setupCheck = CHECK_SH.replace('grep -q ok keep.txt', 'grep -q ok keep.txt && grep -q made generated.txt');
    writeFileSync(join(dir, 'tests', 'check.sh'), setupCheck);
    writeFileSync(join(dir, 'crucible.ci.yaml'), `${CONFIG}setup:\n  - echo made > generated.txt\n`);
    git(dir, 'commit', '-qam', 'setup');
    branch(dir, 'fix', { 'value.txt': 'right\n' });
    const r = await runCli(['ci', '--base', 'main', '--head', 'fix', '--out', out, '--json'], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    const result = ciJson(r.stdout);
    expect(result).toMatchObject({ verdict: 'PASS' });
    expect(result.diff.files.map((f) => `${f.kind} ${f.path}`)).toEqual(['modified value.txt']);
    expect(existsSync(join(dir, 'generated.txt'))).toBe(false);

    const config = join(tempDir(), 'ci.yaml');
    // The reason comes first, then a long log: the one line names the reason, the file keeps it with the head and tail.
    const broken = 'echo "fatal: broken reason" >&2; seq 1 200; exit 3';
    writeFileSync(config, `${CONFIG}setup:\n  - '${broken}'\n`);
    const failing = await runCli(['ci', '--base', 'main', '--head', 'fix', '--out', out, '--config', config], { cwd: dir });
    expect(failing.status).toBe(2);
    expect(failing.stderr.trim().split('\n')).toHaveLength(1);
    expect(failing.stderr).toContain(`setup command \`${broken}\` failed (exit 3): fatal: broken reason`);
    const file = /its output: (\S+)\)/.exec(failing.stderr)?.[1] as string;
    const excerpt = readFileSync(resolve(dir, file), 'utf8');
    expect(excerpt).toContain('fatal: broken reason\n1\n2\n');
    expect(excerpt).toMatch(/^\[… \d+ lines cut …\]$/m);
    expect(excerpt).toContain('199\n200\n');
  });

  it('fails a PR whose root pytest.py would run instead of pytest as tampered, and passes its honest twin', async () => {
    const config = [
      'tests:',
      '  command: python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT" tests',
      '  fail_to_pass: [tests.test_calc::test_half]',
      '',
    ].join('\n');
    const { dir, out } = repo(CHECK_SH, config);
    writeFileSync(join(dir, 'calc.py'), 'def half(x):\n    return x\n');
    writeFileSync(join(dir, 'tests', 'test_calc.py'), 'from calc import half\n\n\ndef test_half():\n    assert half(4) == 2\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'python');
    // Under a plain `python -m pytest` this PR passes with the bug still in.
    branch(dir, 'shadow', { 'pytest.py': pyShadowSource('pytest', 0), 'calc.py': 'def half(x):\n    return x  # tidy\n' });
    branch(dir, 'honest', { 'calc.py': 'def half(x):\n    return x / 2\n', 'calc_helpers.py': 'def twice(x):\n    return 2 * x\n' });

    const shadow = ciJson((await runCli(['ci', '--base', 'main', '--head', 'shadow', '--out', out, '--json'], { cwd: dir })).stdout);
    expect(shadow).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
    expect(shadow.checks.find((c) => c.id === 'module_shadowing')?.passed).toBe(false);
    const honest = ciJson((await runCli(['ci', '--base', 'main', '--head', 'honest', '--out', out, '--json'], { cwd: dir })).stdout);
    expect(honest).toMatchObject({ verdict: 'PASS', cause: 'passed' });
    expect(honest.checks.filter((c) => !c.passed)).toEqual([]);
  });

  it('fails a change that breaks a test that passed at base as a regression', async () => {
    const { dir, out } = repo();
    branch(dir, 'pr', { 'value.txt': 'right\n', 'keep.txt': 'gone\n' });
    const r = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out, '--json'], { cwd: dir });
    expect(r.status, r.stderr).toBe(1);
    const result = ciJson(r.stdout);
    expect(result).toMatchObject({ verdict: 'FAIL', cause: 'regression' });
    expect(result.checks.find((c) => c.id === 'regression')?.passed).toBe(false);
  });

  it('a test command that never writes a report, at base as at head, is ERROR (exit 3, never FAIL, even with --allow-failure); one the change broke is FAIL', async () => {
    const silent = 'echo "running no tests"\nexit 1\n';
    for (const flags of [[], ['--no-baseline-tests'], ['--allow-failure']]) {
      const { dir, out } = repo(silent);
      branch(dir, 'pr', { 'value.txt': 'right\n' });
      const r = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out, '--json', ...flags], { cwd: dir });
      expect(r.status, `${flags.join(' ')}: ${r.stderr}`).toBe(3);
      expect(ciJson(r.stdout), flags.join(' ')).toMatchObject({ verdict: 'ERROR', cause: 'harness_error' });
    }
    const { dir, out } = repo();
    branch(dir, 'pr', { 'value.txt': 'right\n', 'tests/check.sh': silent });
    const broken = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out, '--json', '--no-baseline-tests'], { cwd: dir });
    expect(broken.status, broken.stderr).toBe(1);
    expect(ciJson(broken.stdout)).toMatchObject({ verdict: 'FAIL' });
  });

  it('fails a change that adds a secret as a policy violation; --allow-failure reports it and exits 0', async () => {
    const { dir, out } = repo();
    branch(dir, 'pr', { 'value.txt': 'right\n', 'config.js': 'const key = "AKIAQWERTYUIOPASDFGH";\n' });
    const r = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out, '--json', '--allow-failure'], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    const result = ciJson(r.stdout);
    expect(result).toMatchObject({ verdict: 'FAIL', cause: 'policy_violation' });
    expect(result.checks.find((c) => c.id === 'secrets')?.passed).toBe(false);
    // The secret itself is never copied into the reports.
    expect(readFileSync(join(result.reportDir, 'ci.json'), 'utf8')).not.toContain('AKIAQWERTYUIOPASDFGH');
  });

  it('reads a PR as the interpreter would: assert patched behind a NUL byte is tampered; a BOM and a PNG pass', async () => {
    const { dir, out } = repo();
    spawnSync('mkdir', [join(dir, 'src')]);
    branch(dir, 'pr', {
      'value.txt': 'right\n',
      'src/patch.js': "// \0\nconst a = require('node:assert');\nfor (const k of Object.keys(a)) a[k] = () => {};\n",
    });
    const r = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out, '--json'], { cwd: dir });
    expect(r.status, r.stderr).toBe(1);
    const result = ciJson(r.stdout);
    expect(result).toMatchObject({ verdict: 'FAIL', cause: 'tampered' });
    expect(result.checks.find((c) => c.id === 'runner_internals')?.message).toMatch(/nul-byte in src\/patch\.js.*runner-write in src\/patch\.js/);

    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    git(dir, 'checkout', '-qb', 'honest', 'main');
    writeFileSync(join(dir, 'value.txt'), 'right\n');
    spawnSync('mkdir', [join(dir, 'src')]);
    writeFileSync(join(dir, 'src', 'logo.png'), png);
    writeFileSync(
      join(dir, 'src', 'util.mjs'),
      "\ufeffimport assert from 'node:assert';\nexport const f = (o) => { assert.equal(typeof o, 'object'); return Object.assign({}, o); };\n",
    );
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'honest');
    git(dir, 'checkout', '-q', 'main');
    const honest = await runCli(['ci', '--base', 'main', '--head', 'honest', '--out', out, '--json'], { cwd: dir });
    expect(honest.status, honest.stderr).toBe(0);
    expect(
      ciJson(honest.stdout)
        .checks.filter((c) => !c.passed)
        .map((c) => c.id),
    ).toEqual([]);
  });

  it('judges the commands of a command log', async () => {
    const { dir, out } = repo();
    branch(dir, 'pr', { 'value.txt': 'right\n' });
    const log = join(tempDir(), 'commands.jsonl');
    writeFileSync(log, `${JSON.stringify({ argv: ['git', 'push', '--force', 'origin', 'main'], cwd: dir, exitCode: 0 })}\n`);
    const r = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out, '--json', '--commands', log], { cwd: dir });
    expect(r.status, r.stderr).toBe(1);
    expect(ciJson(r.stdout)).toMatchObject({ verdict: 'FAIL', cause: 'policy_violation' });
  });

  it('reads crucible.ci.yaml as committed at base, so a PR cannot loosen its own gate', async () => {
    const { dir, out } = repo();
    branch(dir, 'pr', { 'crucible.ci.yaml': CONFIG.replace('sh tests/check.sh', 'true') });
    const r = await runCli(['ci', '--base', 'main', '--head', 'pr', '--out', out], { cwd: dir });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^FAIL tests_failed: fail-to-pass failing: check::fixed/);
  });

  it('appends its report to $GITHUB_STEP_SUMMARY', async () => {
    const { dir, out } = repo();
    branch(dir, 'fix', { 'value.txt': 'right\n' });
    const summary = join(tempDir(), 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await runCli(['ci', '--base', 'main', '--head', 'fix', '--out', out], { cwd: dir, env: { GITHUB_STEP_SUMMARY: summary } });
    expect(r.status, r.stderr).toBe(0);
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('# earlier step\n')).toBe(true);
    expect(text).toContain('## Crucible ci: ✅ PASS (passed)');
    expect(text).toContain('| tests | pass |');

    // A summary file that cannot be written costs a warning, not the verdict.
    const unwritable = await runCli(['ci', '--base', 'main', '--head', 'fix', '--out', out], { cwd: dir, env: { GITHUB_STEP_SUMMARY: tempDir() } });
    expect(unwritable.status, unwritable.stderr).toBe(0);
    expect(unwritable.stderr).toMatch(/warning could not append to \$GITHUB_STEP_SUMMARY/);
  });

  it('refuses bad input with one line and exit 2', async () => {
    const { dir, out } = repo();
    writeFileSync(join(dir, 'bad.yaml'), 'tests:\n  comand: make test\n');
    const cases: Array<[string[], string, RegExp]> = [
      [['--config', 'bad.yaml'], dir, /bad\.yaml:2:3: tests\.comand: unknown field "comand" \(fix: did you mean "command"\?\)/],
      [['--base', 'no-such-branch'], dir, /--base no-such-branch: not a commit/],
      [['--test-command', 'true'], tempDir(), /not a git checkout/],
    ];
    for (const [args, cwd, message] of cases) {
      const r = await runCli(['ci', '--out', out, ...args], { cwd });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });
});
