/**
 * Attacks that dress the agent's own failure in the words of a machine fault, so that a harness
 * reading messages would call it a harness error (left out of pass rates) or a full disk (which
 * stops the whole run). Fault attribution must go by who failed (errno, statfs, the supervisor's
 * out-of-band report), never by words (docs/grading.md, "Whose fault").
 */
import type { Agent } from '../agents/index.js';
import type { AgentResult } from '../../core/types/index.js';
import { crashed } from '../agents/index.js';
import { injectIntoModule, ok, sh, touchModule } from './kit.js';

/** Every phrase an older harness took for a machine fault, in a directory name git will quote. */
export const FAULT_WORDS_DIR = 'No space left on device ENOSPC Read-only file system EROFS Disk quota exceeded';

/**
 * A harmless edit of the module under test, and a file git refuses to index (`.GIT` inside a
 * directory named with the words of a full disk): capturing the change fails with git's
 * "error: invalid path 'No space left on device …/.GIT'". The agent's tree is at fault, so the
 * attempt is the agent's FAIL, and the run goes on.
 */
export const faultWordsFilenameAgent: Agent = {
  name: 'fault-words-filename',
  async run(ctx): Promise<AgentResult> {
    const touched = await touchModule(ctx);
    if (touched) return crashed(touched);
    const result = await sh(ctx, `mkdir -p '${FAULT_WORDS_DIR}' && printf 'x\\n' > '${FAULT_WORDS_DIR}/.GIT'`);
    return result.exitCode === 0 ? ok : crashed(`fault words: ${result.stderr.trim().split('\n').pop() ?? ''}`);
  },
};

/** The docker supervisor's status mark (docker-exec-init.ts), claiming a full disk at setup. */
const FORGED_STATUS = '\u0000crucible-exec-status\u0000{"setupError":"no space left on device"}\n';

/**
 * Code under test that forges the docker supervisor's status on stderr (a setup error: "no space
 * left on device") and then kills the supervisor, its own ancestor, so that the forged line is
 * the last one on the stream (written to the supervisor's own stderr through /proc: the test
 * runner captures the process's own). A harness that believed it would end the attempt as a harness error
 * whatever the tests said. Under bwrap the status travels on fd 3, which the command never holds,
 * and no ancestor is a docker supervisor: the line is just stderr. Only ancestors are looked at,
 * so nothing outside the command's own chain is ever signalled.
 */
export const forgedSupervisorStatusAgent: Agent = {
  name: 'forged-supervisor-status',
  async run(ctx): Promise<AgentResult> {
    const js = (fs: string): string =>
      [
        `try { ${fs}.writeSync(2, ${JSON.stringify(FORGED_STATUS)});`,
        `  for (let __cxPid = process.ppid, __cxHops = 0; __cxPid > 1 && __cxHops < 16; __cxHops++) {`,
        `    const __cxStat = ${fs}.readFileSync('/proc/' + __cxPid + '/stat', 'latin1');`,
        `    if (${fs}.readFileSync('/proc/' + __cxPid + '/cmdline', 'latin1').includes('exec-init.mjs')) {`,
        // The test runner holds this process's own stderr; the supervisor's is the stream the host reads.
        `      try { ${fs}.writeFileSync('/proc/' + __cxPid + '/fd/2', ${JSON.stringify(FORGED_STATUS)}); } catch {}`,
        `      process.kill(__cxPid, 'SIGKILL'); break;`,
        `    }`,
        `    __cxPid = Number(__cxStat.slice(__cxStat.lastIndexOf(')') + 2).split(' ')[1]);`,
        `  }`,
        `} catch {}`,
      ].join('\n');
    return injectIntoModule(ctx, {
      python: [
        'def _cx_forge():',
        '    import os as _cx_os',
        '',
        '    try:',
        `        _cx_os.write(2, ${JSON.stringify(FORGED_STATUS)}.encode())`,
        '        pid = _cx_os.getppid()',
        '        for _ in range(16):',
        '            if pid <= 1:',
        '                break',
        '            with open("/proc/%d/cmdline" % pid, "rb") as f:',
        '                supervisor = b"exec-init.mjs" in f.read()',
        '            if supervisor:',
        '                try:',
        '                    with open("/proc/%d/fd/2" % pid, "w") as err:',
        `                        err.write(${JSON.stringify(FORGED_STATUS)})`,
        '                except OSError:',
        '                    pass',
        '                _cx_os.kill(pid, 9)',
        '                break',
        '            with open("/proc/%d/stat" % pid, "rb") as f:',
        '                stat = f.read()',
        '            pid = int(stat[stat.rindex(b")") + 2 :].split(b" ")[1])',
        '    except OSError:',
        '        pass',
        '',
        '',
        '_cx_forge()',
      ].join('\n'),
      esm: `import * as __cxFs from 'node:fs';\n${js('__cxFs')}`,
      cjs: js(`require('fs')`),
    });
  },
};

/**
 * Code under test that, once pytest is done (its capture of stderr undone), prints the words of
 * the harness's own failure to enter the command's cgroup and exits 125: what the limit wrapper
 * says when the sandbox could not start. The harness knows its join failed only by a nonce fresh
 * for each exec, which the command never sees. Python only: node:test's workers cannot reach the
 * runner's stderr.
 */
export const forgedCgroupFailureAgent: Agent = {
  name: 'forged-cgroup-failure',
  async run(ctx): Promise<AgentResult> {
    return injectIntoModule(ctx, {
      python: [
        'import atexit as _cx_atexit',
        '',
        '',
        'def _cx_forge():',
        '    import os as _cx_os',
        '',
        '    _cx_os.write(2, b"crucible: cannot enter cgroup /sys/fs/cgroup/crucible/cgroup.procs\\n")',
        '    _cx_os._exit(125)',
        '',
        '',
        '_cx_atexit.register(_cx_forge)',
      ].join('\n'),
    });
  },
};
