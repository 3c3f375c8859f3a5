import { homedir } from 'node:os';
import { buildBwrapArgs } from './bwrap-args.js';
import { resolveMounts } from './bwrap-mounts.js';
import { buildChildEnv } from './env.js';
import { SandboxSetupError, SandboxUnavailableError } from './errors.js';
import type { ExecRequest, ExecResult, Executor, Isolation, SandboxLayout } from './executor.js';
import type { ExecutorOptions } from './executor-options.js';
import { findOnPath } from './find-on-path.js';
import { enforcedLimits, limitSupport, runLimited } from './limits.js';
import { assertRunnable, refuseEnvironment } from './request-checks.js';
import { sandboxInitSource } from './sandbox-init-source.js';
import { signalName } from './signals.js';
import { spawnBounded } from './spawn-bounded.js';

/**
 * Runs each command in a fresh bubblewrap sandbox: an empty root showing only the allowlist (see
 * bwrap-allowlist.ts) and the layout's mounts, private /tmp, new user/pid/net/ipc/uts namespaces
 * as an unprivileged user, no capabilities, an environment built from scratch, and the layout's
 * limits. The command runs under sandbox-init (see there), which reports its real exit status and
 * bridges the gateway for `network: 'gateway'`.
 */
export function createBwrapExecutor(layout: SandboxLayout, options: ExecutorOptions = {}): Executor {
  const bwrapPath = options.bwrapPath ?? findOnPath('bwrap', process.env.PATH);
  if (bwrapPath === undefined) {
    throw new SandboxUnavailableError('bwrap is not installed (not found on PATH)', 'sudo apt-get install -y bubblewrap');
  }
  const limits = limitSupport(options.cgroups !== false);
  const isolation: Isolation = Object.freeze({ network: true, filesystem: true, hiding: true, limits: Object.freeze(enforcedLimits(limits)) });
  refuseEnvironment('bwrap', layout);
  return {
    kind: 'bwrap',
    isolation,
    close: async () => {},
    async exec(request: ExecRequest): Promise<ExecResult> {
      await assertRunnable(request);
      // /tmp inside is a private tmpfs, so layout.tmp is not needed here.
      const env = buildChildEnv({ hostEnv: process.env, home: layout.home, tmpdir: '/tmp', requestEnv: request.env });
      const mounts = await resolveMounts(layout, request.network, {
        path: env.PATH ?? '',
        pyenvRoot: env.PYENV_ROOT,
        execPath: process.execPath,
        userHome: homedir(),
        sandboxHome: layout.home,
      });
      const initCommand = [process.execPath, '--input-type=module', '-e', await sandboxInitSource()];
      const { args, files } = buildBwrapArgs({ mounts, network: request.network, cwd: request.cwd, command: initCommand });
      const gateway = request.network === 'gateway' ? layout.gateway : undefined;

      return runLimited(layout.limits, limits, [bwrapPath, ...args], async ({ argv, stopped }) => {
        const raw = await spawnBounded({
          argv,
          cwd: request.cwd,
          // Neither bwrap nor sandbox-init needs anything; the command's env travels on fd 3, so
          // that it never shows in a world-readable /proc/<pid>/cmdline.
          env: {},
          stdin: request.stdin,
          timeoutMs: request.timeoutMs,
          signal: request.signal,
          maxOutputBytes: request.maxOutputBytes,
          killGraceMs: options.killGraceMs,
          control: `${JSON.stringify({ argv: request.argv, env, gateway })}\n`,
          files,
        });
        const { control, ...result } = raw;
        const report = parseInitReport(control ?? '');
        const killed = result.timedOut || request.signal?.aborted === true;
        if (!report.ready && !killed && !stopped()) {
          throw new SandboxSetupError(`bwrap could not start the sandbox: ${firstLine(result.stderr) || `exit ${result.exitCode}`}`);
        }
        if (report.exit) return { ...result, ...report.exit };
        // sandbox-init itself was killed from outside (the OOM killer, say); bwrap reports that as 128+N.
        if (report.ready && !killed && result.exitCode !== null && result.exitCode > 128) {
          return { ...result, exitCode: null, signal: signalName(result.exitCode - 128) ?? null };
        }
        return result;
      });
    },
  };
}

interface InitReport {
  ready: boolean;
  exit?: { exitCode: number | null; signal: NodeJS.Signals | null; notStarted?: string };
}

export function parseInitReport(text: string): InitReport {
  const report: InitReport = { ready: false };
  for (const line of text.split('\n')) {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof message !== 'object' || message === null || !('event' in message)) continue;
    if (message.event === 'ready') report.ready = true;
    if (message.event === 'exit' && 'exitCode' in message && 'signal' in message && report.exit === undefined) {
      const exitCode = typeof message.exitCode === 'number' ? message.exitCode : null;
      const signal = typeof message.signal === 'string' ? signalName(message.signal) : undefined;
      const notStarted = 'notStarted' in message && typeof message.notStarted === 'string' ? message.notStarted : undefined;
      report.exit = { exitCode, signal: signal ?? null, ...(notStarted !== undefined ? { notStarted } : {}) };
    }
  }
  return report;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
