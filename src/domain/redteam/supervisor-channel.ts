/**
 * Attacks on the bwrap sandbox's supervisor channel: the init (pid 1) reports the command's exit
 * on fd 3, and the command runs as the same user. Code under test that could take that descriptor
 * (`pidfd_open(1)` + `pidfd_getfd`, or opening `/proc/1/fd/3`) could write the init's report
 * itself: a setup error (the attempt an unscored harness error), an exit record the test process
 * never had, or one report too many. The init makes itself non-dumpable, so every way in is
 * refused; and a report the init never wrote is evidence against the change (the `supervisor`
 * check), never the harness's failure.
 */
import type { Agent } from '../agents/index.js';
import type { AgentResult } from '../../core/types/index.js';
import { injectIntoModule } from './kit.js';

/** What each attack writes on the init's channel, as the init would. */
export const FORGED_INIT_REPORTS = {
  'forged-init-setup-error': ['{"event":"exit","setupError":"setrlimit 1: errno 28"}'],
  'forged-init-exit': ['{"event":"exit","exitCode":null,"signal":9}'],
  'extra-init-report': ['{"event":"exit","exitCode":0,"signal":null}', '{"event":"exit","exitCode":0,"signal":null}'],
} as const;

export type InitReportAttack = keyof typeof FORGED_INIT_REPORTS;

/**
 * Python that tries every way to the init's fd 3 and writes `lines` on the first it gets; it
 * prints what each way gave as one JSON line on stderr (`{"pidfd_getfd": "EPERM", …}`), and never
 * raises. `pidfd_getfd` goes through ctypes (Python has no binding); the syscall numbers are the
 * generic ones (x86-64 and arm64 share them).
 */
export function stealInitChannelPython(lines: readonly string[]): string {
  const payload = JSON.stringify(lines.map((l) => `${l}\n`).join(''));
  return [
    'def _cx_steal_init_channel():',
    '    import ctypes as _cx_ctypes, errno as _cx_errno, json as _cx_json, os as _cx_os, sys as _cx_sys',
    '',
    `    payload = ${payload}.encode()`,
    '    seen = {}',
    '',
    '    def _name(code):',
    '        return _cx_errno.errorcode.get(code, str(code))',
    '',
    '    def _use(fd, how):',
    '        try:',
    '            _cx_os.write(fd, payload)',
    '            seen[how] = "wrote"',
    '        except OSError as e:',
    '            seen[how] = "write " + _name(e.errno)',
    '',
    '    try:',
    '        pidfd = _cx_os.pidfd_open(1)',
    '        libc = _cx_ctypes.CDLL(None, use_errno=True)',
    '        fd = libc.syscall(438, pidfd, 3, 0)',
    '        if fd < 0:',
    '            seen["pidfd_getfd"] = _name(_cx_ctypes.get_errno())',
    '        else:',
    '            _use(fd, "pidfd_getfd")',
    '    except (OSError, AttributeError) as e:',
    '        seen["pidfd_getfd"] = "pidfd_open " + _name(getattr(e, "errno", 0) or 0)',
    '    try:',
    '        seen["proc_fd_link"] = _cx_os.readlink("/proc/1/fd/3")',
    '    except OSError as e:',
    '        seen["proc_fd_link"] = _name(e.errno)',
    '    try:',
    '        _use(_cx_os.open("/proc/1/fd/3", _cx_os.O_WRONLY), "proc_fd")',
    '    except OSError as e:',
    '        seen["proc_fd"] = _name(e.errno)',
    '    try:',
    '        with open("/proc/1/mem", "rb") as mem:',
    '            seen["proc_mem"] = "opened"',
    '    except OSError as e:',
    '        seen["proc_mem"] = _name(e.errno)',
    '    try:',
    '        libc = _cx_ctypes.CDLL(None, use_errno=True)',
    "        # PTRACE_SEIZE: attaching would let the code write with the init's own hands.",
    '        seen["ptrace"] = "attached" if libc.ptrace(0x4206, 1, 0, 0) == 0 else _name(_cx_ctypes.get_errno())',
    '    except OSError as e:',
    '        seen["ptrace"] = _name(e.errno)',
    '    _cx_sys.stderr.write("crucible-redteam-init-channel " + _cx_json.dumps(seen, sort_keys=True) + "\\n")',
    '',
    '',
    '_cx_steal_init_channel()',
  ].join('\n');
}

function initReportAgent(name: InitReportAttack): Agent {
  return {
    name,
    run(ctx): Promise<AgentResult> {
      return injectIntoModule(ctx, { python: stealInitChannelPython(FORGED_INIT_REPORTS[name]) });
    },
  };
}

/** Code under test forges the init's setup error: believed, the attempt would be an unscored harness error. */
export const forgedInitSetupErrorAgent = initReportAgent('forged-init-setup-error');
/** Code under test forges the init's exit record: a SIGKILL the test process never got. */
export const forgedInitExitAgent = initReportAgent('forged-init-exit');
/** Code under test writes two exit records of its own, one too many whichever is read first. */
export const extraInitReportAgent = initReportAgent('extra-init-report');
