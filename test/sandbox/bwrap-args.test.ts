import { describe, expect, it } from 'vitest';
import { buildBwrapArgs } from '../../src/sandbox/bwrap-args.js';
import type { BwrapPlan } from '../../src/sandbox/bwrap-args.js';

const plan = (over: Partial<BwrapPlan> = {}): BwrapPlan => ({ mounts: [], network: 'none', cwd: '/ws', command: ['cmd', '--flag'], ...over });

/** The `--opt a b` triples and pairs after the base mounts, as strings, in order. */
function mountSequence(args: string[]): string[] {
  const afterBase = args.slice(args.indexOf('/tmp') + 1);
  const sequence: string[] = [];
  for (let i = 0; i < afterBase.length; i++) {
    const arg = afterBase[i] ?? '';
    if (arg === '--tmpfs' || arg === '--remount-ro') sequence.push(`${arg} ${afterBase[++i]}`);
    if (arg === '--bind' || arg === '--ro-bind') sequence.push(`${arg} ${afterBase[++i]} ${afterBase[++i]}`);
    if (arg === '--chdir') break;
  }
  return sequence;
}

describe('buildBwrapArgs', () => {
  it('unshares everything, drops capabilities, and keeps the host network only for host mode', () => {
    const none = buildBwrapArgs(plan());
    expect(none).toEqual(expect.arrayContaining(['--unshare-all', '--as-pid-1', '--die-with-parent', '--new-session', '--clearenv']));
    expect(none.join(' ')).toContain('--cap-drop ALL');
    expect(none).not.toContain('--share-net');
    expect(buildBwrapArgs(plan({ network: 'gateway' }))).not.toContain('--share-net');
    expect(buildBwrapArgs(plan({ network: 'host' }))).toContain('--share-net');
  });

  it('mounts a read-only root with fresh /dev, /proc and /tmp before anything else', () => {
    const args = buildBwrapArgs(plan({ mounts: [{ kind: 'writable', path: '/ws' }] }));
    expect(args.join(' ')).toContain('--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind /ws /ws');
  });

  it('mounts parents before children whatever list they came from, and seals hidden dirs last', () => {
    const args = buildBwrapArgs(
      plan({
        mounts: [
          { kind: 'hide-dir', path: '/state' },
          { kind: 'hide-file', path: '/etc/secret' },
          { kind: 'hide-dir', path: '/ws/.crucible' },
          { kind: 'read-only', path: '/state/baseline/objects' },
          { kind: 'writable', path: '/state/runs/ws' },
          { kind: 'writable', path: '/ws' },
        ],
      }),
    );
    expect(mountSequence(args)).toEqual([
      '--tmpfs /state',
      '--bind /ws /ws',
      '--ro-bind /dev/null /etc/secret',
      '--tmpfs /ws/.crucible',
      '--ro-bind /state/baseline/objects /state/baseline/objects',
      '--bind /state/runs/ws /state/runs/ws',
      '--remount-ro /state',
      '--remount-ro /ws/.crucible',
    ]);
  });

  it('ends with the working directory and the command after --', () => {
    const args = buildBwrapArgs(plan());
    expect(args.slice(-5)).toEqual(['--chdir', '/ws', '--', 'cmd', '--flag']);
  });
});
