/**
 * An attempt under bwrap gives its agent the workspace as an overlay of the prepared tree, held
 * for the whole attempt: the agent's commands share one mount, the capture reads the change
 * through the holder (files written, added, deleted, a directory removed, a symlink, a mode), and
 * nothing the agent writes reaches the lower tree, the upper directory by its host path, or the
 * holder through /proc.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt, type AttemptEnv } from '../../src/engine/attempt.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

const TEST_SH = `#!/bin/sh
ok() { if eval "$1"; then echo "<testcase classname=\\"t\\" name=\\"$2\\"/>"; else echo "<testcase classname=\\"t\\" name=\\"$2\\"><failure/></testcase>"; fi; }
{ echo '<testsuite>'
  ok '[ "$(cat src/a.txt)" = fixed ] && [ -f added/new.txt ] && [ ! -e src/gone.txt ] && [ ! -e olddir ]' fixed
  ok 'true' kept
  echo '</testsuite>'; } > "$CRUCIBLE_JUNIT"
`;

function fixture(): Task {
  const dir = tempDir();
  const files: Record<string, string> = {
    'repo/test.sh': TEST_SH,
    'repo/src/a.txt': 'broken\n',
    'repo/src/gone.txt': 'delete me\n',
    'repo/src/run.sh': 'echo run\n',
    'repo/olddir/x.txt': 'x\n',
    'repo/olddir/deep/y.txt': 'y\n',
    'tasks.yaml':
      'tasks:\n  - id: ov\n    repo: { path: repo }\n    instruction: fix it\n    tests:\n      command: sh test.sh\n      fail_to_pass: ["t::fixed"]\n      pass_to_pass: ["t::kept"]\n',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
}

/** Every entry under `dir` (but `.git`): path, kind, mode, and a file's content. */
function listing(dir: string): string[] {
  const found = execFileSync('find', ['.', '-path', './.git', '-prune', '-o', '-mindepth', '1', '-printf', '%P %y %m\\n'], { cwd: dir, encoding: 'utf8' });
  return found
    .trim()
    .split('\n')
    .map((line) => (line.includes(' f ') ? `${line} ${readFileSync(join(dir, line.split(' ')[0] ?? ''), 'utf8')}` : line))
    .sort();
}

/** The agent's edits: a file changed, one deleted, a directory removed, files added, a symlink, a mode. */
const EDITS = [
  'echo fixed > src/a.txt && rm src/gone.txt && rm -r olddir && mkdir added && echo new > added/new.txt',
  'ln -s src/a.txt link && chmod +x src/run.sh',
  // A second command sees the first one's writes: one mount for the whole attempt.
  'cat added/new.txt',
];

/** An agent running each step in its own command, keeping `exit stdout` of each. */
function stepsAgent(steps: (at: { workspace: string; attemptDir: string }) => string[], outputs: string[]): Agent {
  return {
    name: 'overlay-writer',
    async run(ctx) {
      for (const step of steps(ctx)) {
        const run = await ctx.executor.exec({ argv: ['sh', '-c', step], cwd: ctx.workspace, timeoutMs: 60_000, network: 'none', signal: ctx.signal });
        outputs.push(`${run.exitCode} ${run.stdout}`);
      }
      return { stopReason: 'completed' };
    },
  };
}

function attempt(task: Task, agent: Agent, env: Partial<AttemptEnv> = {}): Promise<{ result: AttemptResult; attemptDir: string }> {
  const stateDir = tempDir();
  const plan = { attemptId: 'a0', runId: 'r', taskId: task.id, taskVersion: task.version, agent: agent.name, trial: 0, index: 0 };
  const attemptDir = join(stateDir, 'runs', 'r', 'attempts', 'a0');
  return runAttempt(plan, task, agent, { runDir: join(stateDir, 'runs', 'r'), stateDir, sandbox: 'bwrap', keepWorkspace: true, ...env }).then((result) => ({
    result,
    attemptDir,
  }));
}

describe('an attempt whose agent works in an overlay held for the attempt (bwrap)', () => {
  it('captures the same change as a copy does (the online guard keeps the copy)', async () => {
    const task = fixture();
    const outputs: string[] = [];
    const overlaid = await attempt(
      task,
      stepsAgent(() => EDITS, outputs),
    );
    const copied = await attempt(
      task,
      stepsAgent(() => EDITS, outputs),
      { guard: 'audit' },
    );
    expect([overlaid.result.workspace, copied.result.workspace]).toEqual(['kernel-overlay', 'copy']);
    expect(outputs).toEqual(['0 ', '0 ', '0 new\n', '0 ', '0 ', '0 new\n']);
    expect([overlaid.result.verdict, copied.result.verdict]).toEqual(['PASS', 'PASS']);
    const patch = (dir: string): string => readFileSync(join(dir, 'diff.patch'), 'utf8');
    expect(patch(overlaid.attemptDir)).toBe(patch(copied.attemptDir));
    // --keep-workspace keeps what the agent left either way.
    const left = (dir: string): string[] => listing(join(dir, 'agent-workspace'));
    expect(left(overlaid.attemptDir)).toEqual(left(copied.attemptDir));
    expect(left(overlaid.attemptDir)).toContain('added/new.txt f 644 new\n');
  });

  it('captures exactly the change, and the agent reaches neither the lower tree, the upper directory nor the holder', async () => {
    const task = fixture();
    const outputs: string[] = [];
    const lowerOf = (attemptDir: string): string => join(attemptDir, 'pristine');
    const agent = stepsAgent(
      ({ workspace, attemptDir }) => [
        ...EDITS,
        [
          `echo pwned > ${lowerOf(attemptDir)}/src/a.txt`,
          `echo pwned > ${attemptDir}/agent-overlay/upper/planted`,
          `for p in /proc/[0-9]*/root; do echo pwned > "$p${lowerOf(attemptDir)}/src/a.txt"; echo pwned > "$p${attemptDir}/agent-overlay/upper/planted2"; done`,
          `umount ${workspace}`,
        ]
          .map((line) => `(${line}) 2>/dev/null`)
          .join('; ') + '; true',
      ],
      outputs,
    );
    const { result, attemptDir } = await attempt(task, agent);
    const lower = lowerOf(attemptDir);
    expect(outputs).toEqual(['0 ', '0 ', '0 new\n', '0 ']);
    expect(result.workspace).toBe('kernel-overlay');
    // The change is right; the tries at writing outside the workspace are what fail it.
    expect(result.tests).toMatchObject({ failToPass: { passed: 1, total: 1 }, passToPass: { passed: 1, total: 1 } });
    expect(result.checks.filter((c) => !c.passed).map((c) => c.id)).toEqual(['unsafe_commands']);
    const patch = readFileSync(join(attemptDir, 'diff.patch'), 'utf8');
    for (const path of ['src/a.txt', 'src/gone.txt', 'olddir/x.txt', 'olddir/deep/y.txt', 'added/new.txt', 'link', 'src/run.sh'])
      expect(patch).toContain(`b/${path}`);
    expect(patch).toContain('new file mode 120000');
    expect(patch).toContain('new mode 100755');
    expect(patch).not.toContain('pwned');
    // The lower tree is the prepared tree as it was; the agent's writes were all in upper, which is gone with its holder.
    expect(listing(lower)).toEqual([
      'olddir d 755',
      'olddir/deep d 755',
      'olddir/deep/y.txt f 644 y\n',
      'olddir/x.txt f 644 x\n',
      'src d 755',
      'src/a.txt f 644 broken\n',
      'src/gone.txt f 644 delete me\n',
      'src/run.sh f 644 echo run\n',
      `test.sh f 644 ${TEST_SH}`,
    ]);
    expect(existsSync(join(attemptDir, 'agent-overlay'))).toBe(false);
  });

  it('measures the merged tree while the agent works: flooding the overlay stops the agent at the workspace limit', async () => {
    const task = fixture();
    task.limits.resources.workspaceFiles = 50;
    const outputs: string[] = [];
    const { result } = await attempt(
      task,
      stepsAgent(() => ['i=0; while :; do i=$((i+1)); echo x > "flood-$i"; done'], outputs),
    );
    expect(result.workspace).toBe('kernel-overlay');
    expect(result.agentResult).toMatchObject({ stopReason: 'resource_exceeded', limit: 'workspace_files' });
    expect(result.agentResult?.error).toMatch(/^the workspace grew to more than 50 files/);
  });

  it('captures a change that only adds a file to a directory the prepared tree has', async () => {
    const outputs: string[] = [];
    const { result, attemptDir } = await attempt(
      fixture(),
      stepsAgent(() => ['echo new > src/only-new.txt'], outputs),
    );
    expect(result.workspace).toBe('kernel-overlay');
    expect(readFileSync(join(attemptDir, 'diff.patch'), 'utf8')).toContain('b/src/only-new.txt');
  });
});
