import { homedir } from 'node:os';
import { buildBwrapArgs } from './bwrap-args.js';
import { resolveMounts } from './bwrap-mounts.js';
import { buildChildEnv } from './env.js';
import { SandboxSetupError, SandboxUnavailableError } from './errors.js';
import type { ExecRequest, ExecResult, Executor, Isolation, SandboxLayout } from './executor.js';
import type { ExecutorOptions } from './executor-options.js';
import { findOnPath } from './find-on-path.js';
import { enforcedLimits, limitSupport, runLimited } from './limits.js';
import type { LimitWiring } from './limits.js';
import { encodePerlOrders, errnoName, PERL_INIT, prlimitSyscall } from './perl-init.js';
import { assertRunnable, refuseEnvironment } from './request-checks.js';
import { sandboxInitSource } from './sandbox-init-source.js';
import { signalName } from './signals.js';
import { spawnBounded } from './spawn-bounded.js';

/**
 * Runs each command in a fresh bubblewrap sandbox: an empty root showing only the allowlist (see
 * bwrap-allowlist.ts) and the layout's mounts, private /tmp, new user/pid/net/ipc/uts namespaces
 * as an unprivileged user, no capabilities, an environment built from scratch, and the layout's
 * limits. The command runs under an init that reports its real exit status: perl-init.ts (a
 * perl script that starts in milliseconds), or for `network: 'gateway'` sandbox-init.ts (node),
 * which also bridges the gateway, and everywhere when the host has no perl.
 */
export function createBwrapExecutor(layout: SandboxLayout, options: ExecutorOptions = {}): Executor {
  const bwrapPath = options.bwrapPath ?? findOnPath('bwrap', process.env.PATH);
  if (bwrapPath === undefined) {
    throw new SandboxUnavailableError('bwrap is not installed (not found on PATH)', 'sudo apt-get install -y bubblewrap');
  }
  const perlPath = options.perlPath === undefined ? systemPerl() : (options.perlPath ?? undefined);
  const syscall = prlimitSyscall();
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
      const gateway = request.network === 'gateway' ? layout.gateway : undefined;
      // Only the gateway's forwarder needs node; every other command gets the init that starts in
      // milliseconds (perl-init.ts), when this host has perl where the sandbox shows it.
      const perl = gateway === undefined ? perlPath : undefined;
      const initCommand = perl ? [perl, '-e', PERL_INIT] : [process.execPath, '--input-type=module', '-e', await sandboxInitSource()];
      const wiring: LimitWiring = { enterBy: 'caller', rlimitsBy: perl && syscall !== undefined ? 'caller' : 'wrapper' };

      return runLimited(
        layout.limits,
        limits,
        [bwrapPath],
        async ({ argv, stopped, enter, rlimits }) => {
          const orders = (): string =>
            perl
              ? encodePerlOrders({ argv: request.argv, env, rlimits, prlimitSyscall: syscall })
              : `${JSON.stringify({ argv: request.argv, env, gateway })}\n`;
          const { args, files } = buildBwrapArgs({ mounts, network: request.network, cwd: request.cwd, command: initCommand, info: enter !== undefined });
          const entry = enter ? enterCgroup(enter, request.signal) : undefined;
          const raw = await spawnBounded({
            argv: [...argv, ...args],
            cwd: request.cwd,
            // Neither bwrap nor the init needs anything; the command's env travels on fd 3, so
            // that it never shows in a world-readable /proc/<pid>/cmdline.
            env: {},
            stdin: request.stdin,
            timeoutMs: request.timeoutMs,
            signal: entry?.signal ?? request.signal,
            maxOutputBytes: request.maxOutputBytes,
            killGraceMs: options.killGraceMs,
            // Under a cgroup the orders wait until the sandbox's init is in it: nothing of the
            // command runs outside.
            control: entry ? entry.entered.then(orders) : orders(),
            files,
            // --as-pid-1 with --unshare-pid: bwrap's child is the namespace's init.
            contained: true,
            ...(entry ? { onInfo: entry.onInfo } : {}),
          });
          if (entry?.failure) throw entry.failure;
          const { control, ...result } = raw;
          const report = parseInitReport(control ?? '');
          const killed = result.timedOut || request.signal?.aborted === true;
          if (report.setupError !== undefined) throw new SandboxSetupError(`the sandbox's init could not start the command: ${report.setupError}`);
          if (!report.ready && !killed && !stopped()) {
            throw new SandboxSetupError(`bwrap could not start the sandbox: ${firstLine(result.stderr) || `exit ${result.exitCode}`}`);
          }
          if (report.exit) return { ...result, ...report.exit };
          // The init itself was killed from outside (the OOM killer, say); bwrap reports that as 128+N.
          if (report.ready && !killed && result.exitCode !== null && result.exitCode > 128) {
            return { ...result, exitCode: null, signal: signalName(result.exitCode - 128) ?? null };
          }
          return result;
        },
        wiring,
      );
    },
  };
}

interface CgroupEntry {
  /** The request's signal, or an abort of the sandbox when its init could not be moved. */
  signal: AbortSignal;
  /** Resolves once the sandbox's init is in the exec cgroup. */
  entered: Promise<void>;
  onInfo: (text: string) => void;
  failure?: Error;
}

/**
 * Moves the sandbox's init into the exec cgroup when bwrap names its pid (`--info-fd`, written
 * right after the clone), while the init waits for its orders. A failure ends the sandbox and is
 * the harness's: the command never ran.
 */
function enterCgroup(enter: (pid: number) => void, requestSignal: AbortSignal | undefined): CgroupEntry {
  const abort = new AbortController();
  let release = (): void => undefined;
  const entry: CgroupEntry = {
    signal: requestSignal ? AbortSignal.any([requestSignal, abort.signal]) : abort.signal,
    entered: new Promise<void>((resolve) => (release = resolve)),
    onInfo: (text) => {
      const pid = /"child-pid":\s*(\d+)/.exec(text)?.[1];
      // No pid: bwrap failed before the clone and says why on stderr.
      if (pid === undefined) return;
      try {
        enter(Number(pid));
        release();
      } catch (error) {
        entry.failure = error instanceof Error ? error : new Error(String(error));
        abort.abort();
      }
    },
  };
  return entry;
}

/** The perl the sandbox shows: one in the system directories bwrap binds (bwrap-allowlist.ts). */
function systemPerl(): string | undefined {
  return findOnPath('perl', '/usr/bin:/bin');
}

interface InitReport {
  ready: boolean;
  exit?: { exitCode: number | null; signal: NodeJS.Signals | null; notStarted?: string };
  /** The init could not prepare the command (an rlimit it could not set): the harness's failure. */
  setupError?: string;
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
    if (message.event === 'exit' && 'setupError' in message && typeof message.setupError === 'string') report.setupError ??= message.setupError;
    if (message.event === 'exit' && 'exitCode' in message && 'signal' in message && report.exit === undefined) {
      const exitCode = typeof message.exitCode === 'number' ? message.exitCode : null;
      // sandbox-init names the signal, the perl init gives its number (and the errno's).
      const signal = typeof message.signal === 'string' || typeof message.signal === 'number' ? signalName(message.signal) : undefined;
      const notStarted =
        'notStarted' in message && typeof message.notStarted === 'string'
          ? message.notStarted
          : 'errno' in message && typeof message.errno === 'number'
            ? errnoName(message.errno)
            : undefined;
      report.exit = { exitCode, signal: signal ?? null, ...(notStarted !== undefined ? { notStarted } : {}) };
    }
  }
  return report;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
