/**
 * A Harbor task and a Terminal-Bench task in their published layouts, on the real Docker engine,
 * with no edit to the task: their files live in the image's WORKDIR (/app); Harbor's
 * tests/test.sh reads /tests and writes /logs/verifier/reward.txt, Terminal-Bench's run-tests.sh
 * runs from /tests beside its tests; the solution works in /app. Imported with `crucible import
 * harbor` and validated under --sandbox docker: nop fails, the solution passes (the validation's
 * recorded attempts are the evidence). The base image is
 * made here (`docker import` of busybox's applets, with a `bash` that is busybox's sh, or with no
 * bash at all for a task whose scripts say `#!/bin/sh`): no registry is reachable.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectDocker, dockerClient } from '../../src/infra/docker/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const client = dockerClient();
const made = new Set<string>();
const BASE = 'crucible-test/harbor-base:1';
/** The same without bash: what a task whose scripts say `#!/bin/sh` runs on (busybox, alpine). */
const NO_BASH = 'crucible-test/busybox-no-bash:1';

beforeAll(async () => {
  const docker = await detectDocker(client);
  if (!docker.ok) throw new Error(`these tests need a Docker engine: ${docker.reason} (fix: ${docker.fix})`);
  ensureBaseImage(BASE, true);
  ensureBaseImage(NO_BASH, false);
});

afterAll(async () => {
  for (const ref of made)
    await client
      .getImage(ref)
      .remove({ force: true })
      .catch(() => undefined);
});

/** busybox and all its applets, with /bin/bash running busybox's sh (enough for a Harbor task's scripts), or with no bash at all. */
function ensureBaseImage(tag: string, bash: boolean): void {
  if (spawnSync('docker', ['image', 'inspect', tag], { encoding: 'utf8' }).status === 0) return;
  const root = tempDir();
  mkdirSync(join(root, 'bin'));
  copyFileSync('/bin/busybox', join(root, 'bin', 'busybox'));
  chmodSync(join(root, 'bin', 'busybox'), 0o755);
  const applets = spawnSync('/bin/busybox', ['--list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((a) => /^[a-z0-9_.[-]+$/.test(a) && a !== 'busybox' && a !== 'bash');
  for (const applet of applets) symlinkSync('busybox', join(root, 'bin', applet));
  if (bash) writeFileSync(join(root, 'bin', 'bash'), '#!/bin/sh\nexec /bin/sh "$@"\n', { mode: 0o755 });
  for (const dir of ['etc', 'tmp', 'proc', 'sys', 'dev']) mkdirSync(join(root, dir));
  const imported = spawnSync('sh', ['-c', `tar -C '${root}' -c . | docker import --change 'ENV PATH=/bin' - ${tag}`], { encoding: 'utf8' });
  if (imported.status !== 0) throw new Error(`docker import of the busybox root failed: ${imported.stderr}`);
}

function write(path: string, text: string, mode = 0o644): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text, { mode });
}

/** A Harbor task as published: /app in the image, /tests for the verifier, /logs/verifier for the reward. */
function harborTask(dir: string): void {
  write(join(dir, 'task.toml'), 'version = "1.0"\n\n[metadata]\ndifficulty = "easy"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 120.0\n');
  write(join(dir, 'instruction.md'), 'Write the words of /app/words.txt in upper case to /app/shout.txt.\n');
  write(join(dir, 'environment', 'Dockerfile'), `FROM ${BASE}\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY nonce.txt /opt/nonce.txt\n`);
  write(join(dir, 'environment', 'words.txt'), 'hello harbor\n');
  // A nonce in the build context: this test builds (and removes) an image of its own.
  write(join(dir, 'environment', 'nonce.txt'), randomBytes(8).toString('hex'));
  write(
    join(dir, 'tests', 'test.sh'),
    [
      '#!/bin/bash',
      'mkdir -p /logs/verifier',
      "# A verifier may install its tools at test time: its own container's root is writable.",
      'mkdir -p /opt/verifier-tools && echo ok > /opt/verifier-tools/installed || { echo 0 > /logs/verifier/reward.txt; exit 0; }',
      "# The image's own file is still there, and the answer matches the expectation in /tests.",
      'if [ "$(cat /app/words.txt)" = "hello harbor" ] && [ "$(cat /app/shout.txt 2>/dev/null)" = "$(cat /tests/expected.txt)" ]; then',
      '  echo 1 > /logs/verifier/reward.txt',
      'else',
      '  echo 0 > /logs/verifier/reward.txt',
      'fi',
      '',
    ].join('\n'),
    0o755,
  );
  write(join(dir, 'tests', 'expected.txt'), 'HELLO HARBOR\n');
  write(
    join(dir, 'solution', 'solve.sh'),
    [
      '#!/bin/bash',
      'set -e',
      "# The verifier's files are never the agent's to see.",
      'if [ -e /tests ]; then echo "the agent can see /tests" >&2; exit 3; fi',
      "# Only /app is the agent's to write; the rest of the image is read-only.",
      'if touch /opt/agent-was-here 2>/dev/null; then echo "the agent could write /opt" >&2; exit 4; fi',
      'cd /app',
      'tr a-z A-Z < words.txt > shout.txt',
      '',
    ].join('\n'),
    0o755,
  );
}

/** A Terminal-Bench task as published: task.yaml, a Dockerfile copying workspace/ to /app, run-tests.sh and tests/ copied to /tests for the tests alone. */
function terminalBenchTask(dir: string): void {
  write(
    join(dir, 'task.yaml'),
    'instruction: |\n  Write the words of /app/words.txt in upper case to /app/shout.txt.\ndifficulty: easy\nparser_name: pytest\nmax_agent_timeout_sec: 120\nmax_test_timeout_sec: 120\nrun_tests_in_same_shell: false\n',
  );
  write(join(dir, 'Dockerfile'), `FROM ${BASE}\nWORKDIR /app\nCOPY workspace/ ./\nCOPY nonce.txt /opt/nonce.txt\nENV TEST_DIR=/tests\n`);
  write(join(dir, 'workspace', 'words.txt'), 'hello harbor\n');
  write(join(dir, 'nonce.txt'), randomBytes(8).toString('hex'));
  write(
    join(dir, 'docker-compose.yaml'),
    'services:\n  client:\n    build: { context: ., dockerfile: Dockerfile }\n    environment: [TEST_DIR=${T_BENCH_TEST_DIR}]\n',
  );
  write(
    join(dir, 'run-tests.sh'),
    [
      '#!/bin/bash',
      'cd /app',
      'if [ ! -d "$TEST_DIR" ]; then echo "ERROR: TEST_DIR $TEST_DIR does not exist"; exit 1; fi',
      '# run-tests.sh is beside the tests in /tests, as Terminal-Bench copies them.',
      '[ -f "$TEST_DIR/run-tests.sh" ] || exit 1',
      '[ "$(cat /app/words.txt)" = "hello harbor" ] && [ "$(cat /app/shout.txt 2>/dev/null)" = "$(cat "$TEST_DIR/expected.txt")" ]',
      '',
    ].join('\n'),
    0o755,
  );
  write(join(dir, 'tests', 'expected.txt'), 'HELLO HARBOR\n');
  write(
    join(dir, 'solution.sh'),
    [
      '#!/bin/bash',
      'set -e',
      'if [ -e /tests/expected.txt ]; then echo "the agent can see /tests" >&2; exit 3; fi',
      'cd /app',
      'tr a-z A-Z < words.txt > shout.txt',
      '',
    ].join('\n'),
    0o755,
  );
}

/** A Harbor task as published for a shell-only image: `#!/bin/sh` scripts, /tests, TEST_DIR, /logs/verifier. */
function shHarborTask(dir: string, verifierShebang = '#!/bin/sh'): void {
  write(join(dir, 'task.toml'), 'version = "1.0"\n\n[verifier]\ntimeout_sec = 120.0\n\n[agent]\ntimeout_sec = 120.0\n');
  write(join(dir, 'instruction.md'), 'Write the words of /app/words.txt in upper case to /app/shout.txt.\n');
  write(join(dir, 'environment', 'Dockerfile'), `FROM ${NO_BASH}\nWORKDIR /app\nCOPY words.txt /app/words.txt\nCOPY nonce.txt /opt/nonce.txt\n`);
  write(join(dir, 'environment', 'words.txt'), 'hello harbor\n');
  // A nonce in the build context: this test builds (and removes) an image of its own.
  write(join(dir, 'environment', 'nonce.txt'), randomBytes(8).toString('hex'));
  write(
    join(dir, 'tests', 'test.sh'),
    [
      verifierShebang,
      'mkdir -p /logs/verifier',
      '# TEST_DIR is where Harbor documents the tests are.',
      'if [ "$(cat /app/shout.txt 2>/dev/null)" = "$(cat "$TEST_DIR/expected.txt")" ]; then',
      '  echo 1 > /logs/verifier/reward.txt',
      'else',
      '  echo 0 > /logs/verifier/reward.txt',
      'fi',
      '',
    ].join('\n'),
    0o644,
  );
  write(join(dir, 'tests', 'expected.txt'), 'HELLO HARBOR\n');
  // Published without the executable bit: Harbor makes it executable before it runs it.
  write(join(dir, 'solution', 'solve.sh'), ['#!/bin/sh', 'set -e', 'cd /app', 'tr a-z A-Z < words.txt > shout.txt', ''].join('\n'), 0o644);
}

interface RecordedAttempt {
  attemptId: string;
  agent: string;
  verdict: string;
  tests?: { reward?: number };
}

/** The attempts a validation recorded (its evidence, under the state directory's validate/). */
function validationAttempts(work: string): Array<RecordedAttempt & { dir: string }> {
  const root = join(work, '.crucible', 'validate');
  return readdirSync(root).flatMap((runId) =>
    readdirSync(join(root, runId, 'attempts')).map((id) => {
      const dir = join(root, runId, 'attempts', id);
      return { ...(JSON.parse(readFileSync(join(dir, 'attempt.json'), 'utf8')) as RecordedAttempt), dir };
    }),
  );
}

/**
 * Imports the task unedited and validates it under docker; the validation's own attempts (nop once,
 * the solution three times) are the evidence: the solution passes from the image's workdir with
 * reward 1 and its change captured from /app, nop fails with reward 0. In-process (runCli): Docker
 * and the import are what is tested, not the CLI's process.
 */
async function importAndValidate(work: string, task: string, expected: string[]): Promise<void> {
  const imported = await runCli(['import', 'harbor', task, '-o', join(work, 'out')], { cwd: work });
  expect(imported.status, imported.stderr).toBe(0);
  const taskSet = readFileSync(join(work, 'out', 'tasks.yaml'), 'utf8');
  for (const line of ['workdir: image', 'mount: /tests', ...expected]) expect(taskSet).toContain(line);

  const validated = await runCli(['validate', 'out/tasks.yaml', '--sandbox', 'docker', '--json'], { cwd: work, attempts: 4 });
  for (const m of validated.stderr.matchAll(/crucible-env:[0-9a-f]{12}/g)) made.add(m[0]);
  expect(validated.status, validated.stdout + validated.stderr).toBe(0);
  expect(validated.stdout + validated.stderr).not.toMatch(/the agent can see \/tests|the agent could write/);
  const records = validationAttempts(work);
  const oracles = records.filter((r) => r.agent === 'oracle');
  expect(oracles).toHaveLength(3);
  for (const oracle of oracles) {
    expect(oracle).toMatchObject({ verdict: 'PASS', tests: { reward: 1 } });
    // The change is captured from /app: the diff holds the file the solution wrote there.
    const diff = readFileSync(join(oracle.dir, 'diff.patch'), 'utf8');
    expect(diff).toContain('+++ b/shout.txt');
    expect(diff).toContain('+HELLO HARBOR');
  }
  expect(records.filter((r) => r.agent === 'nop')).toMatchObject([{ verdict: 'FAIL', tests: { reward: 0 } }]);
}

describe('published task layouts under --sandbox docker, imported with no edit', () => {
  it(
    "Harbor: the image workdir is the agent's, /tests the verifier's; nop fails, the solution passes",
    async () => {
      const work = tempDir();
      const task = join(work, 'shout');
      harborTask(task);
      await importAndValidate(work, task, []);
    },
    attemptBudget(4) + 180_000,
  );

  it(
    "Terminal-Bench: the agent works in the image's /app, run-tests.sh and tests/ are at /tests for the tests alone, with the network; nop fails, the solution passes",
    async () => {
      const work = tempDir();
      const task = join(work, 'shout-tb');
      terminalBenchTask(task);
      await importAndValidate(work, task, ['network: host', 'TEST_DIR=/tests bash /tests/run-tests.sh']);
    },
    attemptBudget(4) + 180_000,
  );

  it(
    'Harbor on an image without bash: imported and validated unedited, the scripts run by their #! line; nop fails, the solution passes',
    async () => {
      const work = tempDir();
      const task = join(work, 'shout-sh');
      shHarborTask(task);
      const imported = await runCli(['import', 'harbor', task, '-o', join(work, 'out')], { cwd: work });
      expect(imported.status, imported.stderr).toBe(0);
      // import says what it mapped.
      expect(imported.stdout).toContain('solution/solve.sh is executed by its #! line (/bin/sh)');
      expect(imported.stdout).toContain('/tests/test.sh is executed by its #! line with TEST_DIR=/tests');
      const validated = await runCli(['validate', 'out/tasks.yaml', '--sandbox', 'docker'], { cwd: work, attempts: 4 });
      for (const m of validated.stderr.matchAll(/crucible-env:[0-9a-f]{12}/g)) made.add(m[0]);
      expect(validated.status, validated.stdout + validated.stderr).toBe(0);
      expect(validated.stdout).toMatch(/valid\s+shout-sh\s+fails 1\/1\s+passes 3\/3/);
    },
    attemptBudget(5) + 180_000,
  );

  it(
    'Harbor on an image without bash, a verifier that says #!/bin/bash: a task error with the reason, never "nop fails"',
    async () => {
      const work = tempDir();
      const task = join(work, 'shout-bash-verifier');
      shHarborTask(task, '#!/bin/bash');
      const imported = await runCli(['import', 'harbor', task, '-o', join(work, 'out')], { cwd: work });
      expect(imported.status, imported.stderr).toBe(0);
      const validated = await runCli(['validate', 'out/tasks.yaml', '--sandbox', 'docker'], { cwd: work, attempts: 4 });
      for (const m of validated.stderr.matchAll(/crucible-env:[0-9a-f]{12}/g)) made.add(m[0]);
      const out = validated.stdout + validated.stderr;
      // A broken task is bad input: exit 2, as for run.
      expect(validated.status, out).toBe(2);
      expect(out).toMatch(/tests\.exec: the verifier could not start at the baseline, so no test ran \(the sandbox could not execute it \(ENOENT\)/);
      expect(out).toContain('the interpreter on its #! line present in the task');
      expect(out).not.toMatch(/fails 1\/1/);
    },
    attemptBudget(2) + 120_000,
  );
});
