import { describe, expect, it } from 'vitest';
import {
  afterLastChange,
  failureFacts,
  globDirectory,
  outsideChanges,
  repeats,
  sawFailingOutput,
  stopOf,
  testRuns,
  toolErrors,
  type FactCommand,
  type FactTrajectoryEvent,
} from '../../src/domain/failures/failure-facts.js';
import { failurePatterns, type AttemptFacts } from '../../src/domain/failures/failure-patterns.js';

const tool = (turn: number, name: string, input: unknown, output = '', ok = true, t = turn * 1000): FactTrajectoryEvent => ({
  type: 'tool',
  turn,
  t,
  name,
  input,
  ok,
  output,
});
const cmd = (line: string, exitCode: number | null = 0): FactCommand => ({ argv: ['sh', '-c', line], exitCode });
const end = (turns: number, t: number, stopReason = 'submitted'): FactTrajectoryEvent => ({ type: 'end', turns, t, stopReason });

describe('ran_tests', () => {
  it('finds the first run_tests call or test-runner command in the trajectory, and the first in the command log', () => {
    const trajectory = [tool(1, 'read_file', { path: 'a.py' }), tool(2, 'bash', { command: 'ls' }), tool(3, 'bash', { command: 'python -m pytest -q' })];
    const commands = [cmd('ls'), cmd('cat a.py'), cmd('python -m pytest -q', 1)];
    expect(testRuns({ trajectory, commands })).toEqual({ ran: true, firstTurn: 3, firstCommand: 2 });
    expect(testRuns({ trajectory: [tool(4, 'run_tests', {})], commands: [] })).toEqual({ ran: true, firstTurn: 4, firstCommand: null });
    // An external agent's tool names: Claude Code's Bash, Codex's exec_command with an argv.
    expect(testRuns({ trajectory: [tool(2, 'Bash', { command: 'npm test' })], commands: [] }).firstTurn).toBe(2);
    expect(testRuns({ trajectory: [tool(5, 'exec_command', { cmd: ['bash', '-lc', 'node --test test/'] })], commands: [] }).firstTurn).toBe(5);
  });

  it("counts the task's own test command, and nothing that only mentions a runner's name inside a word", () => {
    const commands = [cmd('cat pytest_notes.txt'), cmd('./check.sh --all')];
    expect(testRuns({ trajectory: [], commands }).ran).toBe(false);
    expect(testRuns({ trajectory: [], commands, testCommand: './check.sh' })).toEqual({ ran: true, firstTurn: null, firstCommand: 1 });
    expect(testRuns({ trajectory: [], commands: [{ argv: ['npx', 'vitest', 'run'], exitCode: 0 }] }).firstCommand).toBe(0);
  });
});

describe('saw_failing_output', () => {
  it("is true when a tool result names a fail-to-pass id or the id's last segment", () => {
    const f2p = ['tests/test_median.py::test_even_length'];
    expect(sawFailingOutput([tool(1, 'bash', {}, 'FAILED tests/test_median.py::test_even_length')], f2p)).toBe(true);
    expect(sawFailingOutput([tool(1, 'run_tests', {}, 'test_even_length ... FAIL')], f2p)).toBe(true);
    expect(sawFailingOutput([tool(1, 'bash', {}, '3 passed')], f2p)).toBe(false);
  });
  it('is unknown (null) for a task with no fail-to-pass ids', () => {
    expect(sawFailingOutput([tool(1, 'bash', {}, 'x')], [])).toBeNull();
  });
});

describe('repeats', () => {
  it('counts exact repeats of a command and of an edit, and the most times one was issued', () => {
    const edit = { path: 'a.py', content: 'x = 1\n' };
    const trajectory = [
      tool(1, 'write_file', edit),
      tool(2, 'write_file', edit),
      tool(3, 'write_file', { ...edit, content: 'x = 2\n' }),
      tool(4, 'write_file', edit),
    ];
    const commands = [cmd('pytest'), cmd('pytest'), cmd('pytest'), cmd('ls'), cmd('pytest -x')];
    expect(repeats({ trajectory, commands })).toEqual({ commands: 2, edits: 2, maxSameCommand: 3, maxSameEdit: 3 });
  });
});

describe('outside_changes', () => {
  it("lists changed files outside allowed_paths' directories", () => {
    expect(globDirectory('src/**/*.ts')).toBe('src');
    expect(globDirectory('lib/util.py')).toBe('lib');
    expect(outsideChanges(['src/a.ts', 'src/deep/b.ts', 'package.json', 'tests/a.test.ts'], ['src/**'])).toEqual(['package.json', 'tests/a.test.ts']);
  });
  it("without allowed_paths, lists changed files that match the task's test paths, or test-file names", () => {
    expect(outsideChanges(['median.py', 'check/median_check.py'], [], ['check/**'])).toEqual(['check/median_check.py']);
    expect(outsideChanges(['median.py', 'test_median.py', 'src/slug.test.js', 'tests/x.py'], [])).toEqual(['src/slug.test.js', 'test_median.py', 'tests/x.py']);
  });
});

describe('tool_errors', () => {
  it('counts tool results marked not ok and commands with a non-zero or missing exit code', () => {
    const trajectory = [tool(1, 'read_file', { path: 'x' }, 'ENOENT', false), tool(2, 'bash', { command: 'ls' })];
    expect(toolErrors({ trajectory, commands: [cmd('ls'), cmd('false', 1), cmd('sleep 99', null)] })).toEqual({ tools: 1, commands: 2 });
  });
});

describe('after_last_change', () => {
  it('measures turns and ms from the last successful edit of a file in the final diff to the end', () => {
    const trajectory = [
      tool(2, 'edit_file', { path: 'median.py', old: 'a', new: 'b' }, 'ok', true, 2000),
      tool(3, 'write_file', { path: 'scratch.txt', content: 'x' }, 'ok', true, 3000),
      tool(4, 'edit_file', { path: './median.py', old: 'b', new: 'c' }, 'ok', true, 4500),
      tool(5, 'edit_file', { path: 'median.py', old: 'zz', new: 'c' }, 'no match', false, 5000),
      end(9, 12_000),
    ];
    expect(afterLastChange({ trajectory, changedFiles: ['median.py'] })).toEqual({ turns: 5, ms: 7500 });
    expect(afterLastChange({ trajectory, changedFiles: [] })).toBeNull();
  });
  it("reads a patch's file headers, and the attempt's turns when the trajectory has no end line", () => {
    const trajectory = [tool(1, 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/a.js\n@@\n-x\n+y\n*** End Patch' })];
    expect(afterLastChange({ trajectory, changedFiles: ['src/a.js'], turns: 3 })).toEqual({ turns: 2, ms: null });
  });
});

describe('tool calls known only from the turns', () => {
  it("reads a turn's calls that no tool line answers, and not those that one does", () => {
    const trajectory: FactTrajectoryEvent[] = [
      { type: 'turn', turn: 1, t: 100, toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'pytest -q' } }] },
      { type: 'tool', turn: 1, t: 150, id: 'c1', name: 'bash', input: { command: 'pytest -q' }, ok: true, output: '' },
      { type: 'turn', turn: 2, t: 200, toolCalls: [{ id: 'c2', name: 'Write', input: { file_path: '/w/a.py', content: 'x' } }] },
      { type: 'turn', turn: 3, t: 300, toolCalls: [{ id: 'c3', name: 'Write', input: { file_path: '/w/a.py', content: 'x' } }] },
      end(4, 900),
    ];
    expect(testRuns({ trajectory, commands: [] }).firstTurn).toBe(1);
    expect(repeats({ trajectory, commands: [] })).toMatchObject({ edits: 1, maxSameEdit: 2 });
    expect(afterLastChange({ trajectory, changedFiles: ['a.py'] })).toEqual({ turns: 1, ms: 600 });
  });
});

describe('stop', () => {
  it('tells stopping on its own from a limit and from an error', () => {
    expect(stopOf('submitted')).toEqual({ kind: 'own', reason: 'submitted' });
    expect(stopOf('end_turn').kind).toBe('own');
    expect(stopOf('max_turns').kind).toBe('limit');
    expect(stopOf('timeout').kind).toBe('limit');
    expect(stopOf('budget_exceeded').kind).toBe('limit');
    expect(stopOf('error').kind).toBe('error');
    expect(stopOf(undefined, [end(3, 10, 'max_turns')])).toEqual({ kind: 'limit', reason: 'max_turns' });
    expect(stopOf(undefined)).toEqual({ kind: 'unknown', reason: null });
  });
});

describe('failure patterns', () => {
  it('counts each pattern over failed attempts only, per agent, with a Wilson interval and the attempt ids', () => {
    const base = { trajectory: [], commands: [], changedFiles: [], failToPass: ['t::test_one'], allowedPaths: [] };
    const lazy = failureFacts({ ...base, stopReason: 'submitted' });
    const busy = failureFacts({
      ...base,
      trajectory: [tool(1, 'run_tests', {}, 'FAILED t::test_one'), tool(2, 'edit_file', { path: 'a.py' }), end(2, 3000)],
      changedFiles: ['a.py'],
      stopReason: 'max_turns',
    });
    const rows: AttemptFacts[] = [
      { attemptId: 'a1', agent: 'x', verdict: 'FAIL', facts: lazy, recorded: true },
      { attemptId: 'a2', agent: 'x', verdict: 'FAIL', facts: busy, recorded: true },
      { attemptId: 'a3', agent: 'x', verdict: 'PASS', facts: lazy, recorded: true },
      { attemptId: 'a4', agent: 'x', verdict: 'ERROR', facts: lazy, recorded: true },
    ];
    const [x, ...others] = failurePatterns(rows);
    expect(others).toEqual([]);
    expect(x?.failed).toBe(2);
    const never = x?.patterns.find((p) => p.id === 'never_ran_tests');
    expect(never).toMatchObject({ count: 1, attemptIds: ['a1'], share: { rate: 0.5, n: 2 } });
    expect(never?.share.low).toBeCloseTo(0.0945, 3);
    expect(never?.share.high).toBeCloseTo(0.9055, 3);
    expect(x?.patterns.find((p) => p.id === 'stopped_at_limit')?.attemptIds).toEqual(['a2']);
    expect(x?.patterns.find((p) => p.id === 'never_saw_failing_test')?.attemptIds).toEqual(['a1']);
    expect(x?.patterns.find((p) => p.id === 'no_change_kept')?.attemptIds).toEqual(['a1']);
    expect(x?.unrecorded).toBeUndefined();
  });

  it('reads the session patterns only on attempts with a trajectory: a graded patch never "never ran the tests"', () => {
    // A patch graded by `crucible grade`: no trajectory, one harness command (git apply), a test file in its diff.
    const patch = failureFacts({
      trajectory: [],
      commands: [{ argv: ['git', 'apply', '-'], exitCode: 0 }],
      changedFiles: ['src/a.mjs', 'test/a.test.mjs'],
      failToPass: ['a > works'],
      allowedPaths: ['src/**'],
      stopReason: 'submitted',
    });
    const lazy = failureFacts({
      trajectory: [end(1, 10)],
      commands: [],
      changedFiles: [],
      failToPass: ['a > works'],
      allowedPaths: [],
      stopReason: 'submitted',
    });
    const [x] = failurePatterns([
      { attemptId: 'p1', agent: 'x', verdict: 'FAIL', facts: patch, recorded: false },
      { attemptId: 'p2', agent: 'x', verdict: 'FAIL', facts: patch, recorded: false },
      { attemptId: 'r1', agent: 'x', verdict: 'FAIL', facts: lazy, recorded: true },
    ]);
    expect(x).toMatchObject({ failed: 3, unrecorded: 2 });
    const byId = new Map(x?.patterns.map((p) => [p.id, p]));
    for (const id of ['never_ran_tests', 'never_saw_failing_test', 'no_change_kept']) {
      expect(byId.get(id), id).toMatchObject({ count: 1, attemptIds: ['r1'], share: { n: 1 } });
    }
    // What the diff and the stop say is known for all three.
    expect(byId.get('changed_outside_scope')).toMatchObject({ attemptIds: ['p1', 'p2'], share: { n: 3 } });
    expect(byId.get('stopped_on_its_own')).toMatchObject({ count: 3, share: { n: 3 } });
  });
});
