/**
 * `crucible import harbor`: the bundled Harbor sample and a Terminal-Bench-layout task become task
 * sets that load; bad input is one line and exit 2; nothing is read through a symlink.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { importHarbor } from '../../src/features/importers/index.js';
import { InputError } from '../../src/core/errors.js';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const SAMPLE = resolve('examples/harbor/hello-file');

function sampleCopy(): string {
  const dir = join(tempDir(), 'hello-file');
  cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** `crucible import harbor DIR` ends on one line matching `message`, exit 2, never "this is a bug", and writes nothing. */
function expectRefused(dir: string, message: RegExp): void {
  const out = join(tempDir(), 'out');
  const r = crucible(['import', 'harbor', dir, '-o', out]);
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toContain('this is a bug');
  expect(existsSync(out)).toBe(false);
}

describe('crucible import harbor', () => {
  it('maps a Harbor task: instruction, timeouts, resources, metadata, Dockerfile, oracle script, reward verifier', async () => {
    const out = join(tempDir(), 'out');
    const result = await importHarbor({ dirs: [SAMPLE], out });
    expect(result.taskIds).toEqual(['hello-file']);
    expect(result.notes).toEqual([
      'hello-file: not used by Crucible (kept in hello-file/source/task.toml): version, metadata.author_name, environment.build_timeout_sec' +
        '; mapped: solution/solve.sh is executed by its #! line (/bin/bash); tests/ is mounted read-only at /tests and /tests/test.sh is executed by its #! line with TEST_DIR=/tests; /logs/verifier in test.sh is the reward directory $CRUCIBLE_REWARD_DIR',
    ]);
    expect(readFileSync(join(out, 'hello-file/source/task.toml'), 'utf8')).toBe(readFileSync(join(SAMPLE, 'task.toml'), 'utf8'));
    expect(result.needs).toEqual([
      expect.stringMatching(
        /^hello-file: the image is built from hello-file\/environment\/Dockerfile when the task runs; its base image \S+ must be local or pullable$/,
      ),
    ]);
    const task = loadTaskSet(result.taskSetFile).tasks[0];
    expect(task).toMatchObject({
      id: 'hello-file',
      instruction: readFileSync(join(SAMPLE, 'instruction.md'), 'utf8'),
      limits: { agentTimeoutMs: 120_000, testTimeoutMs: 60_000, resources: { memoryBytes: 1024 * 1024 * 1024 } },
      environment: { dockerfile: join(out, 'hello-file/environment/Dockerfile'), cpus: 1, workdir: 'image' },
      metadata: { difficulty: 'easy', category: 'file-operations', tags: ['sample', 'shell', 'harbor'] },
      oracle: { script: readFileSync(join(SAMPLE, 'solution/solve.sh'), 'utf8') },
      // The verifier's files at their published path, /tests, mounted for its runs alone.
      tests: {
        // Executed directly, as Harbor runs it: its #! line picks the interpreter; no shell is assumed.
        command: '/tests/test.sh',
        failToPass: ['reward'],
        reward: { files: join(out, 'hello-file/verifier/tests'), mount: '/tests', exec: ['/tests/test.sh'], env: { TEST_DIR: '/tests' } },
      },
    });
    expect(task?.tests.reward?.network).toBeUndefined();
    // Harbor's hard-coded reward directory becomes the one Crucible reads, under every sandbox.
    const testSh = readFileSync(join(out, 'hello-file/verifier/tests/test.sh'), 'utf8');
    expect(testSh).not.toContain('/logs/verifier');
    expect(testSh).toContain('${CRUCIBLE_REWARD_DIR}/reward.txt');
    // The verifier's files are outside the workspace the agent starts from.
    expect(existsSync(join(out, 'hello-file/workspace/tests'))).toBe(false);
  });

  it("reads Terminal-Bench's task.yaml layout; the tests and solution stay out of the image's build context", async () => {
    const dir = join(tempDir(), 'tb task');
    write(dir, {
      'task.yaml':
        'instruction: |\n  Write ok.txt.\ndifficulty: medium\ncategory: system\ntags: [tb]\nmax_agent_timeout_sec: 300\nmax_test_timeout_sec: 30\nparser_name: pytest\n',
      Dockerfile: 'FROM crucible/host:1\nCOPY data.txt /opt/data.txt\n',
      'data.txt': 'x\n',
      'solution.sh': 'touch ok.txt\n',
      'run-tests.sh': 'test -f ok.txt\n',
      'tests/test_outputs.py': 'def test_ok(): pass\n',
      'docker-compose.yaml': 'services: {}\n',
    });
    const out = join(tempDir(), 'out');
    const result = await importHarbor({ dirs: [dir], out });
    expect(result.taskIds).toEqual(['tb-task']);
    // parser_name and the rest are not silently dropped: one note names each field and file.
    expect(result.notes).toEqual([
      "tb-task: not used by Crucible (kept in tb-task/source/task.yaml): parser_name; docker-compose.yaml (the Dockerfile is built alone) is not imported; mapped: solution.sh has no #! line: bash runs it; tests/ and run-tests.sh are mounted read-only at /tests; bash /tests/run-tests.sh runs with TEST_DIR=/tests and its exit status is the reward (0 passes); Terminal-Bench gives its tests the network (run-tests.sh installs its tools): the verifier runs with the host's network (tests.network: host; set none to refuse); the agent still reaches only the model gateway",
    ]);
    expect(result.needs).toEqual([
      'tb-task: the image is built from tb-task/environment/Dockerfile when the task runs; its base image crucible/host:1 must be local or pullable',
    ]);
    const task = loadTaskSet(result.taskSetFile).tasks[0];
    expect(task).toMatchObject({
      id: 'tb-task',
      instruction: 'Write ok.txt.\n',
      limits: { agentTimeoutMs: 300_000, testTimeoutMs: 30_000 },
      metadata: { difficulty: 'medium', category: 'system', tags: ['tb', 'terminal-bench'] },
      oracle: { script: 'touch ok.txt\n' },
    });
    // As Terminal-Bench runs it: in the image's workdir, its tests/ and run-tests.sh at /tests (read-only, the verifier's alone), with the network.
    expect(task?.tests.command).toBe('if TEST_DIR=/tests bash /tests/run-tests.sh; then echo 1 > "$CRUCIBLE_REWARD"; else echo 0 > "$CRUCIBLE_REWARD"; fi');
    expect(task?.tests.reward).toMatchObject({ mount: '/tests', network: 'host' });
    expect(task?.environment).toMatchObject({ workdir: 'image' });
    expect(existsSync(join(out, 'tb-task/environment/data.txt'))).toBe(true);
    for (const hidden of ['tests', 'solution.sh', 'run-tests.sh', 'task.yaml'])
      expect(existsSync(join(out, 'tb-task/environment', hidden)), hidden).toBe(false);
    expect(existsSync(join(out, 'tb-task/verifier/tests/test_outputs.py'))).toBe(true);
    expect(existsSync(join(out, 'tb-task/verifier/tests/run-tests.sh'))).toBe(true);
  });

  it('reads task.toml 1.1 ([[task.authors]], keywords) and skips a multi-step task with the reason', async () => {
    const v11 = sampleCopy();
    writeFileSync(
      join(v11, 'task.toml'),
      [
        'schema_version = "1.1"',
        'artifacts = []',
        '[task]',
        'name = "org/hello-file"',
        'keywords = ["shell", "files"]',
        '[[task.authors]]',
        'name = "Ada"',
        'email = "ada@example.com"',
        '[[task.authors]]',
        'name = "Grace"',
        '[metadata]',
        'difficulty = "easy"',
        'tags = ["sample"]',
        '[agent]',
        'timeout_sec = 120.0',
        '[environment]',
        'workdir = "/app"',
        'allow_internet = true',
        '',
      ].join('\n'),
    );
    const multi = join(tempDir(), 'multi');
    write(multi, {
      'task.toml': 'schema_version = "1.1"\n[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n',
      'environment/Dockerfile': 'FROM crucible/host:1\n',
      'steps/one/instruction.md': 'one\n',
      'steps/two/instruction.md': 'two\n',
    });
    const out = join(tempDir(), 'out');
    const result = await importHarbor({ dirs: [v11, multi], out });
    expect(result.taskIds).toEqual(['hello-file']);
    expect(result.notes).toEqual([
      "hello-file: not used by Crucible (kept in hello-file/source/task.toml): schema_version, artifacts, task.name, task.authors; mapped: solution/solve.sh is executed by its #! line (/bin/bash); tests/ is mounted read-only at /tests and /tests/test.sh is executed by its #! line with TEST_DIR=/tests; /logs/verifier in test.sh is the reward directory $CRUCIBLE_REWARD_DIR; environment.allow_internet = true: the verifier runs with the host's network (tests.network: host); the agent still reaches only the model gateway",
    ]);
    // Harbor 1.1's workdir and allow_internet are mapped: where the files live, and the verifier's network.
    const mapped = loadTaskSet(result.taskSetFile).tasks[0];
    expect(mapped?.environment?.workdir).toBe('/app');
    expect(mapped?.tests.reward?.network).toBe('host');
    expect(result.skipped).toEqual([{ source: multi, id: 'multi', reason: expect.stringMatching(/^a multi-step task \(2 \[\[steps\]\] in task\.toml\)/) }]);
    expect(loadTaskSet(result.taskSetFile).tasks[0]?.metadata).toMatchObject({ difficulty: 'easy', tags: ['sample', 'shell', 'files', 'harbor'] });
    await expect(importHarbor({ dirs: [multi], out: join(tempDir(), 'out') })).rejects.toThrow(/no task can be imported .*multi-step/);
  });

  it("takes Terminal-Bench's older descriptions list: the base variant, the others named", async () => {
    const dir = join(tempDir(), 'lcb');
    write(dir, {
      'task.yaml': 'descriptions:\n  - key: base\n    description: Solve it.\n  - key: hard\n    description: Solve it fast.\nauthor_name: x\n',
      Dockerfile: 'FROM crucible/host:1 AS build\nFROM build\n',
      'run-tests.sh': 'true\n',
    });
    const result = await importHarbor({ dirs: [dir], out: join(tempDir(), 'out') });
    expect(loadTaskSet(result.taskSetFile).tasks[0]?.instruction).toBe('Solve it.');
    expect(result.notes[0]).toContain('author_name, descriptions[key=hard]');
    expect(result.needs[0]).toContain('its base image crucible/host:1 must be');
  });

  it('bad input is one line naming the file and the fix, exit 2, and nothing is written', () => {
    const noInstruction = sampleCopy();
    rmSync(join(noInstruction, 'instruction.md'));
    const badToml = sampleCopy();
    writeFileSync(join(badToml, 'task.toml'), '[agent]\ntimeout_sec = 1\n[agent]\n');
    const badTimeout = sampleCopy();
    writeFileSync(join(badTimeout, 'task.toml'), '[agent]\ntimeout_sec = "soon"\n');
    const cases: Array<[string, RegExp]> = [
      [noInstruction, /hello-file: no instruction\.md \(fix: add instruction\.md/],
      [badToml, /task\.toml: line 3, column \d+: .*\(fix: make it valid TOML/],
      [badTimeout, /task\.toml: agent\.timeout_sec: expected a positive number, got "soon"/],
      [tempDir(), /neither task\.toml \(Harbor\) nor task\.yaml \(Terminal-Bench\) found/],
    ];
    for (const [dir, message] of cases) expectRefused(dir, message);
  });

  it('never follows a symlink out of the task directory', async () => {
    const secret = join(tempDir(), 'secret.txt');
    writeFileSync(secret, 'not for the task set');
    const linkedFile = sampleCopy();
    symlinkSync(secret, join(linkedFile, 'tests', 'data.txt'));
    const linkedDir = sampleCopy();
    rmSync(join(linkedDir, 'solution'), { recursive: true });
    symlinkSync(dirname(secret), join(linkedDir, 'solution'));
    const linkedInstruction = sampleCopy();
    rmSync(join(linkedInstruction, 'instruction.md'));
    symlinkSync(secret, join(linkedInstruction, 'instruction.md'));
    for (const dir of [linkedFile, linkedDir, linkedInstruction]) {
      const out = join(tempDir(), 'out');
      await expect(importHarbor({ dirs: [dir], out })).rejects.toThrow(InputError);
      await expect(importHarbor({ dirs: [dir], out })).rejects.toThrow(/symlink/);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('keeps the scripts executable and refuses a non-empty output directory without --force', async () => {
    const out = join(tempDir(), 'out');
    await importHarbor({ dirs: [SAMPLE], out });
    chmodSync(join(out, 'tasks.yaml'), 0o644);
    await expect(importHarbor({ dirs: [SAMPLE], out })).rejects.toThrow(/exists and is not empty/);
    await importHarbor({ dirs: [SAMPLE], out, force: true });
    expect(loadTaskSet(join(out, 'tasks.yaml')).tasks).toHaveLength(1);
  });
});

describe('crucible import harbor: hostile directories', () => {
  it('ends on one line with exit 2, never "this is a bug", and writes nothing', () => {
    const deepToml = sampleCopy();
    writeFileSync(join(deepToml, 'task.toml'), `[${Array.from({ length: 50_000 }, () => 'a').join('.')}]\nx = 1\n`);
    const deepArray = sampleCopy();
    writeFileSync(join(deepArray, 'task.toml'), `x = ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`);
    const newlineName = sampleCopy();
    writeFileSync(join(newlineName, 'tests', 'a\nb.py'), 'x');
    const latin1Name = sampleCopy();
    writeFileSync(Buffer.concat([Buffer.from(join(latin1Name, 'solution', 'caf')), Buffer.from([0xe9])]), 'x');
    const many = sampleCopy();
    for (let i = 0; i < 1001; i++) writeFileSync(join(many, 'tests', `t${i}.txt`), '');
    const deepDirs = sampleCopy();
    mkdirSync(join(deepDirs, 'environment', ...Array.from({ length: 20 }, () => 'd')), { recursive: true });
    const newlineDir = join(tempDir(), 'bad\ntask');
    cpSync(SAMPLE, newlineDir, { recursive: true });
    const cases: Array<[string, RegExp]> = [
      [deepToml, /task\.toml: tables or values nested deeper than 64 levels/],
      [deepArray, /task\.toml: .*nested/],
      [newlineName, /tests\/a\\x0Ab\.py: a name that is not UTF-8 text or holds a control character/],
      [latin1Name, /solution\/caf\\xE9: a name that is not UTF-8 text/],
      [many, /more than 1000 files and directories/],
      [deepDirs, /directories nested deeper than 16 levels/],
      [join(newlineDir, 'nope'), /bad\\ntask\/nope: not a task directory/],
    ];
    for (const [dir, message] of cases) expectRefused(dir, message);
  });
});
