import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { detectCgroups, parseCgroupMounts, sweepStaleCgroups } from '../../src/infra/sandbox/cgroup.js';

const V1_MOUNTINFO = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '39 31 0:36 /docker/abc /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');
const V1_SELF = ['8:pids:/docker/abc/job', '4:memory:/process_api/x', '2:cpu,cpuacct:/', '0::/'].join('\n');

describe('parseCgroupMounts', () => {
  it('finds our own cgroup in each v1 hierarchy, through combined and bind-mounted ones', () => {
    expect(parseCgroupMounts(V1_MOUNTINFO, V1_SELF)).toEqual({
      v2: '/sys/fs/cgroup/unified',
      v1: { pids: '/sys/fs/cgroup/pids/job', memory: '/sys/fs/cgroup/memory/process_api/x', cpu: '/sys/fs/cgroup/cpu,cpuacct' },
    });
  });

  it('finds our cgroup in a pure v2 hierarchy, with escaped mount points', () => {
    const mountinfo = '30 23 0:26 / /sys/fs/cgroup\\040v2 rw,nosuid - cgroup2 cgroup2 rw,nsdelegate';
    expect(parseCgroupMounts(mountinfo, '0::/user.slice/app.scope\n')).toEqual({ v2: '/sys/fs/cgroup v2/user.slice/app.scope', v1: {} });
  });

  it('finds nothing without cgroup mounts', () => {
    expect(parseCgroupMounts('22 1 0:5 / /proc rw - proc proc rw', '0::/\n')).toEqual({ v1: {} });
  });
});

describe('stale cgroups', () => {
  it('removes the empty cgroups of a Crucible process that is gone, and nothing else', () => {
    const support = detectCgroups();
    const home = support.pids;
    if (!home) throw new Error('this test needs a writable pids cgroup (run as root, as CI does)');
    const gone = spawnSync('true').pid as number;
    const stale = join(home.parent, `crucible-${gone}-1`);
    const live = join(home.parent, `crucible-${process.ppid}-1`);
    const foreign = join(home.parent, `other-${gone}-1`);
    for (const dir of [stale, live, foreign]) mkdirSync(dir);
    try {
      expect(sweepStaleCgroups(support)).toContain(stale);
      expect([existsSync(stale), existsSync(live), existsSync(foreign)]).toEqual([false, true, true]);
    } finally {
      for (const dir of [stale, live, foreign]) if (existsSync(dir)) rmdirSync(dir);
    }
  });
});
