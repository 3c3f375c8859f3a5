import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { SandboxSetupError } from './errors.js';
import type { TreeOverlay } from './executor.js';
import { enterHolderArgv, HOLDER_READY, overlayHolderArgv } from './tree-overlay.js';

/**
 * One overlay mounted once for a whole attempt, in a user and mount namespace of its own that a
 * small process of the harness's, the holder, keeps alive: every sandboxed command enters that
 * namespace (enterHolderArgv) instead of mounting its own, and the harness reads and writes the
 * merged tree from the host through `/proc/<holder>/root`, which the kernel resolves in the
 * holder's mount namespace (the host itself never sees the mount).
 *
 * The holder lives until its stdin ends: closed by `close()`, or by the kernel when the harness
 * dies however it dies, so no holder outlives its harness. The namespace goes with the last of
 * its processes, and the mount with it; the lower tree is never written, what was written is all
 * in `upper`.
 */
export interface OverlayHolder {
  /** The overlay as the sandbox layout gives it: `heldBy` names the holder. */
  readonly overlay: TreeOverlay & { heldBy: number };
  /**
   * Where the host reaches `path` (absolute) as the holder's namespace shows it. Each component
   * after `/proc/<pid>/root` is resolved by the kernel in there; read it with no-follow helpers,
   * as any tree an agent wrote. Throws once the holder is gone (its pid may be another's then).
   */
  view(path: string): string;
  /**
   * The argv that runs a command of the harness's (git, which resolves its work tree's path itself
   * and so cannot be given a `/proc` path) inside the holder's namespace, in directory `wd`.
   */
  enterArgv(wd: string): string[];
  /** Ends the holder (safe to call twice); the caller removes upper and work afterwards. */
  close(): Promise<void>;
}

/** Mounts `overlay` in a new holder; throws SandboxSetupError when the mount fails. */
export async function startOverlayHolder(overlay: TreeOverlay): Promise<OverlayHolder> {
  const [command = 'unshare', ...args] = overlayHolderArgv(overlay);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolveExit) => child.once('close', () => resolveExit()));
  const pid = await ready(child);
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  return {
    overlay: { ...overlay, heldBy: pid },
    view(path) {
      if (!isAbsolute(path)) throw new Error(`overlay holder: ${path} is not an absolute path`);
      if (gone()) throw new Error(`overlay holder ${pid} is gone: its tree can no longer be read`);
      return `/proc/${pid}/root${path}`;
    },
    enterArgv(wd) {
      if (gone()) throw new Error(`overlay holder ${pid} is gone: its tree can no longer be read`);
      return enterHolderArgv(pid, wd);
    },
    async close() {
      if (!gone()) {
        child.stdin?.end();
        child.kill('SIGKILL');
      }
      await exited;
    },
  };
}

/** The holder's pid once it says the mount is made; its stderr in the error when it ends first. */
function ready(child: ChildProcess): Promise<number> {
  return new Promise((resolveReady, rejectReady) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (err.length < 4096) err += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`${HOLDER_READY}\n`) && child.pid !== undefined) resolveReady(child.pid);
    });
    child.once('error', (error) => rejectReady(new SandboxSetupError(`overlay holder could not start: ${error.message}`)));
    child.once('close', (code, signal) => {
      const why = err.trim().split('\n')[0] || (signal !== null ? `signal ${signal}` : `exit ${code}`);
      rejectReady(new SandboxSetupError(`overlay holder could not mount the tree: ${why}`));
    });
  });
}
