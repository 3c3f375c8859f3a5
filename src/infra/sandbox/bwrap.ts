import { homedir } from 'node:os';
import { buildBwrapArgs } from './bwrap-args.js';
import { resolveMounts } from './bwrap-mounts.js';
import { buildChildEnv } from './env.js';
import { SandboxSetupError, SandboxUnavailableError } from './errors.js';
import type { ExecRequest, ExecResult, Executor, SandboxLayout, TreeOverlay } from './executor.js';
import type { ExecutorOptions } from './executor-options.js';
import { findOnPath } from './find-on-path.js';
import { executorCapabilities } from './kinds.js';
import { enterHolderArgv, overlayMountArgv } from './tree-overlay.js';
import { enforcedLimits, limitSupport, runLimited } from './limits.js';
import type { LimitWiring } from './limits.js';
import { gatewayForwarderSource } from './forwarder-source.js';
import { encodePerlOrders, errnoName, PERL_INIT, prctlSyscall, prlimitSyscall } from './perl-init.js';
import { assertRunnable, refuseEnvironment } from './request-checks.js';
import { signalName } from './signals.js';
import { spawnBounded } from './spawn-bounded.js';

/**
 * Runs each command in a fresh bubblewrap sandbox: an empty root showing only the allowlist (see
 * bwrap-allowlist.ts) and the layout's mounts, private /tmp, new user/pid/net/ipc/uts namespaces
 * as an unprivileged user, no capabilities, an environment built from scratch, and the layout's
 * limits. The command runs under an init that reports its real exit status on a channel the
 * command cannot reach: perl-init.ts (a perl script that starts in milliseconds and makes itself
 * non-dumpable), which for `network: 'gateway'` first starts gateway-forwarder.ts (node).
 */
export function createBwrapExecutor(layout: SandboxLayout, options: ExecutorOptions = {}): Executor {
  const bwrapPath = options.bwrapPath ?? findOnPath('bwrap', process.env.PATH);
  if (bwrapPath === undefined) {
    throw new SandboxUnavailableError('bwrap is not installed (not found on PATH)', 'sudo apt-get install -y bubblewrap');
  }
  const perl = options.perlPath ?? systemPerl();
  if (perl === undefined) {
    throw new SandboxUnavailableError("bwrap's sandbox init is a perl script, and perl is not in /usr/bin or /bin", 'sudo apt-get install -y perl-base');
  }
  const prctl = prctlSyscall();
  if (prctl === undefined) {
    // Without prctl the init stays dumpable, and the command could take its report channel.
    throw new SandboxUnavailableError(`bwrap: no prctl syscall number known for ${process.arch}`, 'use --sandbox docker on this machine');
  }
  const syscall = prlimitSyscall();
  const limits = limitSupport(options.cgroups !== false);
  const capabilities = executorCapabilities('bwrap', { limits: enforcedLimits(limits) });
  refuseEnvironment('bwrap', layout);
  return {
    kind: 'bwrap',
    capabilities,
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
      // Only the gateway's forwarder needs node, and it holds nothing of the init's.
      const helper = gateway
        ? [process.execPath, '--input-type=module', '-e', await gatewayForwarderSource(), gateway.socketPath, String(gateway.port)]
        : undefined;
      const initCommand = [perl, '-e', PERL_INIT];
      const wiring: LimitWiring = { enterBy: 'caller', rlimitsBy: syscall !== undefined ? 'caller' : 'wrapper' };

      return runLimited(
        layout.limits,
        limits,
        // An overlay workspace is mounted in a namespace of the command's own, or of its holder's; bwrap starts inside it.
        [...overlayPrefix(layout.overlay), bwrapPath],
        async ({ argv, stopped, enter, rlimits }) => {
          const orders = (): string =>
            encodePerlOrders({ argv: request.argv, env, rlimits, prlimitSyscall: syscall, prctlSyscall: prctl, ...(helper ? { helper } : {}) });
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
          // Evidence against the command, never the harness's failure: the init cannot have written it.
          if (report.forged !== undefined) return { ...result, forgedReport: report.forged };
          // A setup failure comes before the command exists: a sandbox killed later had a command running.
          if (report.setupError !== undefined && !killed && !stopped()) {
            throw new SandboxSetupError(`the sandbox's init could not start the command: ${report.setupError}`);
          }
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

function overlayPrefix(overlay: TreeOverlay | undefined): string[] {
  if (!overlay) return [];
  return overlay.heldBy !== undefined ? enterHolderArgv(overlay.heldBy) : overlayMountArgv(overlay);
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
  /**
   * What on the channel the init never writes: a line out of its protocol, a second exit record,
   * an unfinished line (it writes each line whole). Only the command can have put it there.
   */
  forged?: string;
}

const READY = '{"event":"ready"}';
/** The init's exit records, exactly as perl-init.ts writes them. */
const EXIT_RECORDS: readonly RegExp[] = [
  /^\{"event":"exit","exitCode":(\d{1,3}),"signal":null\}$/,
  /^\{"event":"exit","exitCode":null,"signal":(\d{1,2})\}$/,
  /^\{"event":"exit","exitCode":(12[67]),"signal":null,"errno":(\d{1,4})\}$/,
  /^\{"event":"exit","setupError":"([^"\\]*)"\}$/,
];

/**
 * The init's report, read as strictly as it is written: `ready`, at most one exit record, nothing
 * after. The command cannot reach the channel (perl-init.ts makes the init non-dumpable); if
 * anything else is there all the same, none of the report is believed, and `forged` says why.
 */
export function parseInitReport(text: string): InitReport {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  const forged = (why: string): InitReport => ({ ready: lines[0] === READY, forged: why });
  if (tail !== '') return forged(`an unfinished line on the init's channel: ${clip(tail)}`);
  if (lines.length === 0) return { ready: false };
  if (lines[0] !== READY) return forged(`the init's channel did not start with its ready line: ${clip(lines[0] ?? '')}`);
  if (lines.length > 2) return forged(`${lines.length - 1} exit records on the init's channel, where the init writes one: ${clip(lines.slice(1).join(' | '))}`);
  const record = lines[1];
  if (record === undefined) return { ready: true };
  const matched = EXIT_RECORDS.map((pattern) => pattern.exec(record));
  const [code, signal, errno, setup] = matched;
  if (code) return { ready: true, exit: { exitCode: Number(code[1]), signal: null } };
  if (signal) return { ready: true, exit: { exitCode: null, signal: signalName(Number(signal[1])) ?? null } };
  if (errno) return { ready: true, exit: { exitCode: Number(errno[1]), signal: null, notStarted: errnoName(Number(errno[2])) } };
  if (setup) return { ready: true, setupError: setup[1] ?? '' };
  return forged(`a line the init never writes on its channel: ${clip(record)}`);
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
