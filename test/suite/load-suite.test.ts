import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { loadRunInput, resolveRunAgents } from '../../src/features/suite/index.js';
import { tinyTaskSet } from '../cli/fixtures.js';
import { useTempDirs } from '../helpers/tmp.js';
import { SMOKE_SUITE, twoSetSuite } from './fixtures.js';

const tempDir = useTempDirs();

/** The one-line InputError loading `suite` gives. */
function loadError(suite: string): string {
  const { suiteFile } = twoSetSuite(tempDir(), suite);
  try {
    loadRunInput(suiteFile);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('the suite loaded');
}

describe('loadRunInput', () => {
  it('loads a suite: filtered tasks of each set, ids prefixed with the set name, agents and runs', () => {
    const { suiteFile, alpha, beta } = twoSetSuite(tempDir(), SMOKE_SUITE);
    const input = loadRunInput(suiteFile);
    expect(input.kind).toBe('suite');
    expect(input.name).toBe('smoke');
    expect(input.tasks.map((t) => t.id)).toEqual(['alpha/t1', 'alpha/t3', 'beta/t2']);
    // Each task keeps its own file, so its repo and errors resolve there.
    expect(input.tasks.map((t) => t.sourceFile)).toEqual([alpha, alpha, beta]);
    expect(input.taskSetOf('beta/t2')).toBe('beta');
    expect(input.taskSetOf('t2')).toBeUndefined();
    expect(input.taskIndex.get('alpha/t3')).toBe(2);
    expect(input.agents).toEqual(['oracle', 'nop']);
    expect(input.agentRuns).toEqual({ nop: 1 });
    expect(input.runs).toBe(2);
    expect([...input.taskSetFiles]).toEqual([
      ['alpha', alpha],
      ['beta', beta],
    ]);
  });

  it('loads a task set as before: ids unprefixed, no task sets', () => {
    const file = tinyTaskSet(tempDir(), 2);
    const input = loadRunInput(file);
    expect(input.kind).toBe('taskset');
    expect(input.tasks.map((t) => t.id)).toEqual(['t1', 't2']);
    expect(input.taskSetOf('t1')).toBeUndefined();
    expect(input.agents).toBeUndefined();
  });
});

describe('bad suites: one line naming file, field and fix', () => {
  it('a missing task-set file', () => {
    expect(loadError('suite: s\ntask_sets:\n  - path: gamma/tasks.yaml\n')).toMatch(
      /suite\.yaml:3:\d+: task_sets\[0\]\.path: task-set file not found: gamma\/tasks\.yaml \(fix: paths are relative to .*suite\.yaml\)/,
    );
  });

  it('an unknown field, with the near match', () => {
    expect(loadError('suite: s\ntask_sets:\n  - path: alpha/tasks.yaml\n    tag: [even]\n')).toMatch(/suite\.yaml:4:\d+: task_sets\[0\]\.tag: .*tags/);
  });

  it('an empty list of task sets', () => {
    expect(loadError('suite: s\ntask_sets: []\n')).toMatch(/suite\.yaml:2:\d+: task_sets: .*\(fix: /);
  });

  it('two task sets with the same name: refused, naming both files', () => {
    expect(loadError('suite: s\ntask_sets:\n  - path: alpha/tasks.yaml\n  - path: beta/tasks.yaml\n')).toMatch(
      /suite\.yaml:4:\d+: task_sets\[1\]\.path: task set name "tasks" is also task_sets\[0\]'s \(alpha\/tasks\.yaml\); task ids would collide \(fix: give one of them a distinct `name:`\)/,
    );
  });

  it('a filter that matches nothing names the suite field and what the set has', () => {
    expect(loadError('suite: s\ntask_sets:\n  - path: alpha/tasks.yaml\n    tags: [huge]\n')).toMatch(
      /suite\.yaml:4:\d+: task_sets\[0\]\.tags: tags huge: no task in alpha\/tasks\.yaml matches \(fix: the task set has tags: even, odd/,
    );
    expect(loadError('suite: s\ntask_sets:\n  - path: alpha/tasks.yaml\n    tasks: [t9]\n')).toMatch(/task_sets\[0\]\.tasks: tasks t9: no such task/);
  });

  it('an agent listed twice', () => {
    expect(loadError('suite: s\ntask_sets:\n  - path: alpha/tasks.yaml\nagents: [oracle, { agent: oracle, runs: 2 }]\n')).toMatch(
      /agents\[1\]: agent oracle is listed twice/,
    );
  });

  it('a suite without suite: is read as a task set, and says what a task set needs', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.yaml'), 'task_sets:\n  - path: a.yaml\n');
    expect(() => loadRunInput(join(dir, 'x.yaml'))).toThrow(InputError);
  });
});

describe('resolveRunAgents: flags over the file', () => {
  const suite = { agents: ['oracle', 'nop'], agentRuns: { nop: 1 }, runs: 3 };
  it("without flags: the suite's agents, the most runs as trials, fewer for the agents that ask", () => {
    expect(resolveRunAgents(suite, { agents: [] })).toEqual({ agents: ['oracle', 'nop'], trials: 3, agentTrials: { nop: 1 } });
  });
  it('--agent replaces the list (a named agent keeps its runs:); --runs replaces every runs:', () => {
    expect(resolveRunAgents(suite, { agents: ['nop', 'oracle:x'] })).toEqual({ agents: ['nop', 'oracle:x'], trials: 3, agentTrials: { nop: 1 } });
    expect(resolveRunAgents(suite, { agents: [], runs: 2 })).toEqual({ agents: ['oracle', 'nop'], trials: 2 });
    expect(resolveRunAgents({}, { agents: ['oracle'] })).toEqual({ agents: ['oracle'], trials: 1 });
  });
});
