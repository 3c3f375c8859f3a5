import { describe, expect, it } from 'vitest';
import { buildBwrapArgs } from '../../src/infra/sandbox/bwrap-args.js';
import type { BwrapPlan } from '../../src/infra/sandbox/bwrap-args.js';

const plan = (over: Partial<BwrapPlan> = {}): BwrapPlan => ({ mounts: [], network: 'none', cwd: '/ws', command: ['cmd', '--flag'], ...over });
const argsOf = (over: Partial<BwrapPlan> = {}): string[] => buildBwrapArgs(plan(over)).args;

/** The `--opt a b` triples and pairs after the base mounts, as strings, in order. */
function mountSequence(args: string[]): string[] {
  const afterBase = args.slice(args.indexOf('/tmp') + 1);
  const sequence: string[] = [];
  for (let i = 0; i < afterBase.length; i++) {
    const arg = afterBase[i] ?? '';
    if (arg === '--tmpfs' || arg === '--remount-ro') sequence.push(`${arg} ${afterBase[++i]}`);
    if (arg === '--bind' || arg === '--ro-bind' || arg === '--symlink' || arg === '--ro-bind-data') {
      sequence.push(`${arg} ${afterBase[++i]} ${afterBase[++i]}`);
    }
    if (arg === '--chdir') break;
  }
  return sequence;
}

describe('buildBwrapArgs', () => {
  it('unshares everything, runs as an unprivileged user, drops capabilities, and keeps the host network only for host mode', () => {
    const none = argsOf();
    expect(none).toEqual(expect.arrayContaining(['--unshare-all', '--unshare-user', '--as-pid-1', '--die-with-parent', '--new-session', '--clearenv']));
    expect(none.join(' ')).toContain('--cap-drop ALL');
    expect(none.join(' ')).toContain('--uid 1000 --gid 1000');
    expect(none).not.toContain('--share-net');
    expect(argsOf({ network: 'gateway' })).not.toContain('--share-net');
    expect(argsOf({ network: 'host' })).toContain('--share-net');
  });

  it('starts from an empty root: fresh /dev, /proc and /tmp, then only the mounts given, then seals the root', () => {
    const args = argsOf({ mounts: [{ kind: 'writable', path: '/ws' }] });
    expect(args.join(' ')).toContain('--dev /dev --proc /proc --tmpfs /tmp --bind /ws /ws --remount-ro / --chdir');
    expect(args.join(' ')).not.toContain('--ro-bind / /');
  });

  it('makes symlinks, binds from another source, and hands synthesized files over descriptors from 4 on', () => {
    const { args, files } = buildBwrapArgs(
      plan({
        mounts: [
          { kind: 'data', path: '/etc/passwd', content: 'pw' },
          { kind: 'symlink', path: '/bin', target: 'usr/bin' },
          { kind: 'read-only', path: '/etc/resolv.conf', source: '/run/resolv.conf' },
          { kind: 'data', path: '/etc/group', content: 'gr' },
        ],
      }),
    );
    expect(mountSequence(args)).toEqual([
      '--symlink usr/bin /bin',
      '--ro-bind-data 4 /etc/passwd',
      '--ro-bind-data 5 /etc/group',
      '--ro-bind /run/resolv.conf /etc/resolv.conf',
      '--remount-ro /',
    ]);
    expect(files).toEqual(['pw', 'gr']);
  });

  it('mounts parents before children whatever list they came from, and seals hidden dirs last', () => {
    const args = argsOf({
      mounts: [
        { kind: 'hide-dir', path: '/state' },
        { kind: 'hide-file', path: '/etc/secret' },
        { kind: 'hide-dir', path: '/ws/.crucible' },
        { kind: 'read-only', path: '/state/baseline/objects' },
        { kind: 'writable', path: '/state/runs/ws' },
        { kind: 'writable', path: '/ws' },
      ],
    });
    expect(mountSequence(args)).toEqual([
      '--tmpfs /state',
      '--bind /ws /ws',
      '--ro-bind /dev/null /etc/secret',
      '--tmpfs /ws/.crucible',
      '--ro-bind /state/baseline/objects /state/baseline/objects',
      '--bind /state/runs/ws /state/runs/ws',
      '--remount-ro /state',
      '--remount-ro /ws/.crucible',
      '--remount-ro /',
    ]);
  });

  it('ends with the working directory and the command after --', () => {
    const args = argsOf();
    expect(args.slice(-5)).toEqual(['--chdir', '/ws', '--', 'cmd', '--flag']);
  });
});
