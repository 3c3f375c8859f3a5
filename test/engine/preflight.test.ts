import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun, preflightTasks } from '../../src/engine/index.js';
import { taskWhere } from '../../src/domain/tasks/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A git repo whose one commit holds value.txt and a check script writing JUnit, and a task set on it. */
function gitTaskSet(dir: string): string {
  const repo = join(dir, 'origin');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'value.txt'), 'wrong\n');
  writeFileSync(
    join(repo, 'check.sh'),
    'printf \'<testsuite name="s" tests="1"><testcase classname="check" name="fixed"><failure message="no"/></testcase></testsuite>\' > "$CRUCIBLE_JUNIT"\nexit 1\n',
  );
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'one');
  const commit = git('rev-parse', 'HEAD');
  const task = (id: string, ref: string): string =>
    [
      `  - id: ${id}`,
      `    repo: { git: ${JSON.stringify(`file://${repo}`)}, commit: ${ref} }`,
      '    instruction: fix it',
      '    tests:',
      '      command: sh check.sh',
      '      fail_to_pass: [check::fixed]',
    ].join('\n');
  const file = join(dir, 'tasks.yaml');
  writeFileSync(file, `tasks:\n${[task('a', commit), task('b', commit), task('lost', 'deadbeefdeadbeef')].join('\n')}\n`);
  return file;
}

describe('preflightTasks', () => {
  it("resolves a git source into one shared clone for all its tasks, and names a commit that is not there as the task's defect", async () => {
    const dir = tempDir();
    const { tasks } = loadTaskSet(gitTaskSet(dir));
    const stateDir = join(dir, '.crucible');
    const checked = await preflightTasks(tasks, {
      stateDir,
      dir: join(dir, 'preflight'),
      sandbox: 'local',
      oracle: false,
      concurrency: 2,
      where: (t) => taskWhere(t, tasks.indexOf(t), 'tasks.yaml'),
    });
    expect(checked.map((c) => [c.taskId, c.defects.length, c.unchecked])).toEqual([
      ['a', 0, undefined],
      ['b', 0, undefined],
      ['lost', 1, undefined],
    ]);
    expect(checked[2]?.defects[0]).toMatchObject({
      file: 'tasks.yaml',
      field: 'tasks[2].repo.commit',
      problem: expect.stringMatching(/^deadbeefdeadbeef: not found in file:\/\//),
      fix: 'use a commit, tag or branch that exists there',
    });
    // One shared clone serves every task of the repo (and, later, every attempt).
    expect(readdirSync(join(stateDir, 'cache', 'git'))).toHaveLength(1);
    // Only the baseline reports stay behind as evidence.
    for (const task of readdirSync(join(dir, 'preflight'))) expect(readdirSync(join(dir, 'preflight', task))).toEqual(['baseline.junit.xml']);
  });
});

describe('preflightTasks stopped while a baseline runs', () => {
  it('finds no defect in a task whose test command the interrupt killed: that run is no evidence about the task', async () => {
    const dir = tempDir();
    const repo = join(dir, 'repo');
    mkdirSync(repo, { recursive: true });
    const started = join(dir, 'started');
    writeFileSync(join(repo, 'check.sh'), `touch ${started}\nexec sleep 600\n`);
    const file = join(dir, 'tasks.yaml');
    const task = [
      'tasks:',
      '  - id: slow',
      '    repo: { path: repo }',
      '    instruction: fix it',
      '    tests:',
      '      command: sh check.sh',
      '      fail_to_pass: [check::fixed]',
    ];
    writeFileSync(file, `${task.join('\n')}\n`);
    const { tasks } = loadTaskSet(file);
    const stop = new AbortController();
    const checking = preflightTasks(tasks, {
      stateDir: join(dir, '.crucible'),
      dir: join(dir, 'preflight'),
      sandbox: 'local',
      oracle: false,
      concurrency: 1,
      signal: stop.signal,
    });
    while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    const checked = await checking;
    expect(checked.flatMap((c) => c.defects)).toEqual([]);
  });
});

describe('a run after its preflight', () => {
  it("gives every attempt of a task the preflight's baseline test run instead of running its own", async () => {
    const dir = tempDir();
    const file = gitTaskSet(dir);
    const { tasks } = loadTaskSet(file);
    const { attempts, runDir } = await executeRun({
      taskSetFile: 'tasks.yaml',
      taskSetPath: file,
      tasks: tasks.filter((t) => t.id === 'a'),
      agents: ['nop'],
      trials: 2,
      stateDir: join(dir, '.crucible'),
      settings: { sandbox: 'local' },
      concurrency: 1,
      history: false,
    });
    expect(attempts.map((a) => `${a.verdict} ${a.cause}`)).toEqual(['FAIL no_changes', 'FAIL no_changes']);
    for (const a of attempts) {
      // The baseline evidence is there (the failing test is known to fail before the agent)…
      expect(a.baselineTests?.failToPass.failing.map((f) => f.id)).toEqual(['check::fixed']);
      // …but the attempt ran no baseline tests of its own.
      expect(a.timings.baselineMs ?? 0).toBe(0);
      expect(existsSync(join(runDir, 'attempts', a.attemptId, 'baseline.junit.xml'))).toBe(false);
    }
    const [checked = ''] = readdirSync(join(runDir, 'preflight'));
    expect(readdirSync(join(runDir, 'preflight', checked))).toEqual(['baseline.junit.xml']);
  });
});
