import { describe, expect, it } from 'vitest';
import { HOST_ROOTS, hostPathMapper, mapStrings } from '../../src/domain/trace/host-paths.js';

describe('host paths in a trace', () => {
  const map = hostPathMapper({ attemptDir: '/home/u/.crucible/runs/r1/attempts/a1', stateDir: '/home/u/.crucible', tasksetDir: '/home/u/tasks' });

  it('stand-in roots replace the host directories where they start a path, the longest first', () => {
    expect(map('/home/u/.crucible/runs/r1/attempts/a1/workspace')).toBe(`${HOST_ROOTS.attempt}/workspace`);
    expect(map('/home/u/.crucible/cache/tools')).toBe(`${HOST_ROOTS.state}/cache/tools`);
    expect(map('/home/u/tasks/held-out/py')).toBe(`${HOST_ROOTS.taskset}/held-out/py`);
    expect(map("cd '/home/u/.crucible/runs/r1/attempts/a1/workspace' && rm -rf /etc")).toBe(`cd '${HOST_ROOTS.attempt}/workspace' && rm -rf /etc`);
  });

  it('leaves a longer name that only starts like a host directory, and paths outside them, alone', () => {
    expect(map('/home/u/.crucible/runs/r1/attempts/a10/workspace')).toBe(`${HOST_ROOTS.state}/runs/r1/attempts/a10/workspace`);
    expect(map('/home/u/tasks2/x')).toBe('/home/u/tasks2/x');
    expect(map('/etc/passwd')).toBe('/etc/passwd');
  });

  it('maps every string of an event, nested and in keys, and nothing else', () => {
    const event = { data: { cwd: '/home/u/tasks', roots: ['/home/u/.crucible/x'], n: 3, ok: true, byPath: { '/home/u/tasks/a': 1 } } };
    expect(mapStrings(event, map)).toEqual({
      data: { cwd: HOST_ROOTS.taskset, roots: [`${HOST_ROOTS.state}/x`], n: 3, ok: true, byPath: { [`${HOST_ROOTS.taskset}/a`]: 1 } },
    });
  });
});
