import { constants } from 'node:os';
import type { RlimitPlan } from './rlimits.js';

/**
 * The init (pid 1) of every bwrap sandbox: a Perl script, because perl is Essential on Debian
 * (perl-base) and lives in the host's /usr that every sandbox binds, and because it starts in a
 * couple of milliseconds where node takes tens. It gives:
 *
 * - the command's real wait status (bwrap alone makes a death by signal N into exit 128+N);
 * - `errno`, the error of an exec that failed, out of band (a CLOEXEC pipe from the child: it is
 *   closed by a successful exec, and carries the errno otherwise);
 * - a report channel the command cannot reach: before anything of the command exists it makes
 *   itself non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`). The command runs as the same user, but
 *   without capabilities (`--cap-drop ALL`) the kernel then refuses it every ptrace-class access
 *   to the init: `pidfd_getfd`, `/proc/1/fd`, `/proc/1/mem`, `process_vm_*`, ptrace itself. The
 *   fork that becomes the command is non-dumpable too until its exec, which resets the flag and
 *   closes fd 3 (close-on-exec);
 * - no inherited descriptors: fd 3 (the control socket) is made close-on-exec, and every other
 *   descriptor above 2 is closed (a fresh perl that ran no module has none of its own: any there
 *   came from bwrap's parent; the one that fails to reopen is the listing's own, closed already);
 * - the rlimits, set on itself before the fork (inherited by the command) through the
 *   `prlimit64` syscall, so that no prlimit process runs per command;
 * - for `network: 'gateway'`, a helper started before the command (gateway-forwarder.ts): it gets
 *   a pipe's write end as its last argument, and the command starts once "listening\n" came back;
 * - the pid namespace's end: it exits as soon as the command has, and the kernel then kills
 *   whatever the command left in the namespace. Meanwhile it reaps the orphans reparented to it.
 *
 * It loads no module (`use` of even strict.pm costs more than the rest), so it is written plainly.
 * As pid 1 it gets no signal it has no handler for, so the command cannot kill it with `kill 0`.
 *
 * Protocol on fd 3. Out: {"event":"ready"} at once; then exactly one exit record,
 * {"event":"exit","exitCode","signal"} (signal as a number, exit code null for a signal death) or
 * with "errno": N for a command that could not be started, or {"event":"exit","setupError":"..."}
 * when the init could not prepare the command; then it exits. The harness takes anything else on
 * the channel as forged (bwrap.ts parseInitReport). In: "<byte length>\n" then the orders,
 * NUL-terminated strings (see encodePerlOrders).
 */
export const PERL_INIT = String.raw`
open(my $ctl, '+<&=', 3) or exit 125;
fcntl($ctl, 2, 1);
opendir(my $fds, '/proc/self/fd') or exit 125;
my @stray = grep { /^\d+$/ && $_ > 3 } readdir($fds);
closedir($fds);
for my $fd (@stray) {
  my $h;
  close($h) if open($h, '<&=', $fd) || open($h, '>&=', $fd);
}
syswrite($ctl, qq({"event":"ready"}\n));
my $in = '';
until ($in =~ /\n/) { sysread($ctl, $in, 65536, length $in) or exit 125 }
my ($size, $orders) = split(/\n/, $in, 2);
while (length($orders) < $size) { sysread($ctl, $orders, 65536, length $orders) or exit 125 }
my @field = split(/\0/, $orders, -1);
pop @field;
my $prlimit = 0 + shift @field;
my $prctl = 0 + shift @field;
sub setup_failed {
  syswrite($ctl, qq({"event":"exit","setupError":"$_[0]"}\n));
  exit 125;
}
setup_failed('prctl PR_SET_DUMPABLE: errno ' . (0 + $!)) if syscall($prctl, 4, 0, 0, 0, 0) == -1;
for (1 .. shift @field) {
  my ($resource, $soft, $hard) = splice(@field, 0, 3);
  my $limit = pack('QQ', $soft, $hard);
  setup_failed("setrlimit $resource: errno " . (0 + $!)) if syscall($prlimit, 0, 0 + $resource, $limit, 0) == -1;
}
my @helper = splice(@field, 0, shift @field);
if (@helper) {
  pipe(my $heard, my $says) or setup_failed('pipe: errno ' . (0 + $!));
  my $helper = fork;
  if (defined $helper && $helper == 0) {
    close($heard);
    fcntl($says, 2, 0);
    exec { $helper[0] } @helper, fileno($says);
    exit 127;
  }
  close($says);
  my $word = '';
  sysread($heard, $word, 64) if defined $helper;
  close($heard);
  setup_failed('the gateway forwarder did not start (its error is on stderr)') if $word ne "listening\n";
}
my @argv = splice(@field, 0, shift @field);
%ENV = ();
for (@field) { my ($name, $value) = split(/=/, $_, 2); $ENV{$name} = $value }
pipe(my $failed, my $report) or exit 125;
my $pid = fork;
if (defined $pid && $pid == 0) {
  close($failed);
  exec { $argv[0] } @argv;
  syswrite($report, 0 + $!);
  exit 127;
}
close($report);
my ($errno, $status) = ('', 0);
if (!defined $pid) {
  $errno = 0 + $!;
} else {
  sysread($failed, $errno, 64);
  while ((my $gone = wait) != -1) { if ($gone == $pid) { $status = $?; last } }
}
if ($errno ne '') {
  my $missing = $errno == 2;
  $! = $errno;
  syswrite(STDERR, "crucible: $argv[0]: " . ($missing ? 'command not found' : "cannot execute ($!)") . "\n");
  syswrite($ctl, qq({"event":"exit","exitCode":) . ($missing ? 127 : 126) . qq(,"signal":null,"errno":$errno}\n));
  exit($missing ? 127 : 126);
}
my ($signal, $code) = ($status & 127, $status >> 8);
syswrite($ctl, $signal ? qq({"event":"exit","exitCode":null,"signal":$signal}\n) : qq({"event":"exit","exitCode":$code,"signal":null}\n));
exit($signal ? 128 + $signal : $code);
`;

/** prlimit64's number by Node's `process.arch`; elsewhere the rlimits are left to util-linux prlimit. */
const PRLIMIT64_SYSCALL: Partial<Record<string, number>> = { x64: 302, arm64: 261, riscv64: 261, loong64: 261 };
/** prctl's number by `process.arch`: without it the init cannot make itself non-dumpable, and bwrap is refused. */
const PRCTL_SYSCALL: Partial<Record<string, number>> = { x64: 157, arm64: 167, riscv64: 167, loong64: 167 };

export function prlimitSyscall(arch: string = process.arch): number | undefined {
  return PRLIMIT64_SYSCALL[arch];
}

export function prctlSyscall(arch: string = process.arch): number | undefined {
  return PRCTL_SYSCALL[arch];
}

const RLIMIT_CPU = 0;
const RLIMIT_FSIZE = 1;

export interface PerlOrders {
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
  rlimits?: RlimitPlan;
  /** Required when `rlimits` sets anything. */
  prlimitSyscall?: number;
  /** prctl's syscall number (prctlSyscall()); the init refuses to start the command without it. */
  prctlSyscall: number;
  /** A process started before the command (the gateway forwarder); it is handed a pipe's write end as its last argument. */
  helper?: readonly string[];
}

/** The orders as PERL_INIT reads them: a length line, then NUL-terminated fields. */
export function encodePerlOrders(orders: PerlOrders): string {
  const limits: number[][] = [];
  const plan = orders.rlimits ?? {};
  if (plan.fileSizeBytes !== undefined) limits.push([RLIMIT_FSIZE, plan.fileSizeBytes, plan.fileSizeBytes]);
  // SIGXCPU at the soft limit, SIGKILL a second later for a process that ignores it.
  if (plan.cpuSeconds !== undefined) limits.push([RLIMIT_CPU, plan.cpuSeconds, plan.cpuSeconds + 1]);
  if (limits.length > 0 && orders.prlimitSyscall === undefined) throw new Error('perl init: rlimits need the prlimit64 syscall number');
  const fields = [
    String(orders.prlimitSyscall ?? 0),
    String(orders.prctlSyscall),
    String(limits.length),
    ...limits.flat().map(String),
    String(orders.helper?.length ?? 0),
    ...(orders.helper ?? []),
    String(orders.argv.length),
    ...orders.argv,
    ...Object.entries(orders.env).map(([name, value]) => `${name}=${value}`),
  ];
  for (const field of fields) if (field.includes('\0')) throw new Error(`exec: an argument contains a NUL byte: ${JSON.stringify(field)}`);
  const body = Buffer.from(fields.map((field) => `${field}\0`).join(''), 'utf8');
  return `${body.length}\n${body.toString('utf8')}`;
}

const ERRNO_NAMES = new Map<number, string>(Object.entries(constants.errno).map(([name, number]) => [number, name]));

/** `ENOENT` for 2, …; the number itself for one this platform does not name. */
export function errnoName(errno: number): string {
  return ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
}
