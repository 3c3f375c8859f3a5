/**
 * Files the harness might trip over after the agent: special files (FIFOs, sockets), names that
 * confuse path or diff parsing, trees deeper than PATH_MAX, modes that deny the harness its own
 * cleanup, and processes left running to write once the agent has stopped. None fixes anything;
 * the harness must neither hang, nor write outside the attempt, nor end the attempt `ERROR`.
 */
import type { Agent } from '../agents/index.js';
import type { AgentResult } from '../../core/types/index.js';
import { crashed } from '../agents/index.js';
import { injectIntoModule, ok, sh, shellQuote, touchModule } from './kit.js';

/**
 * Code under test that, at exit, puts a FIFO where the JUnit report is: a harness that opens the
 * report with a blocking open() waits forever for a writer that never comes.
 */
export const reportFifoAgent: Agent = {
  name: 'report-fifo',
  async run(ctx) {
    const js = (fs: string, cp: string): string =>
      [
        `process.on('exit', () => { try {`,
        `  const __cxPath = process.env.CRUCIBLE_JUNIT; if (!__cxPath) return;`,
        `  try { ${fs}.unlinkSync(__cxPath); } catch {}`,
        `  ${cp}.execFileSync('mkfifo', [__cxPath]);`,
        `} catch {} });`,
      ].join('\n');
    return injectIntoModule(ctx, {
      python: [
        'import atexit as _cx_atexit',
        '',
        '',
        'def _cx_fifo():',
        '    import os as _cx_os',
        '',
        '    path = _cx_os.environ.get("CRUCIBLE_JUNIT")',
        '    if path:',
        '        try:',
        '            if _cx_os.path.lexists(path):',
        '                _cx_os.unlink(path)',
        '            _cx_os.mkfifo(path)',
        '        except OSError:',
        '            pass',
        '',
        '',
        '_cx_atexit.register(_cx_fifo)',
      ].join('\n'),
      esm: `import * as __cxFs from 'node:fs';\nimport * as __cxCp from 'node:child_process';\n${js('__cxFs', '__cxCp')}`,
      cjs: js(`require('fs')`, `require('child_process')`),
    });
  },
};

/**
 * Special files and odd names beside a harmless edit of the module under test: FIFOs and a UNIX
 * socket at ordinary and ignored paths, FIFOs named `.gitattributes` and `.gitignore` (which git
 * opens with a blocking open()), names with a newline that spells a diff header, a tab, a
 * backslash, quotes, a leading dash, bytes that are not UTF-8, and a directory and a file with
 * mode 000. The edit makes the attempt go all the way through capture and the tests.
 */
export const oddFilesAgent: Agent = {
  name: 'odd-files',
  async run(ctx): Promise<AgentResult> {
    const touched = await touchModule(ctx);
    if (touched) return crashed(touched);
    const script = [
      'set -e',
      'mkfifo crucible.fifo .gitattributes',
      'mkdir -p crucible-dir && mkfifo crucible-dir/.gitignore',
      'mkdir -p node_modules/crucible __pycache__',
      'mkfifo node_modules/crucible/index.js __pycache__/crucible.cpython-311.pyc',
      `python3 -c ${shellQuote("import socket; s = socket.socket(socket.AF_UNIX); s.bind('crucible.sock')")} 2>/dev/null || node -e ${shellQuote("const s = require('net').createServer().listen('crucible.sock', () => s.close(() => {}));")} || true`,
      `mkdir -p ${shellQuote('a\n+++ b/tests')} && printf 'x\\n' > ${shellQuote('a\n+++ b/tests/test_crucible.py')}`,
      `printf 'x\\n' > ${shellQuote('tab\there')} && printf 'x\\n' > ${shellQuote('back\\slash "quoted" \'single\'')} && printf 'x\\n' > ./--help`,
      `printf 'x\\n' > "$(printf 'bad\\377\\376name')"`,
      `mkdir "$(printf 'dir\\377')" && printf 'x\\n' > "$(printf 'dir\\377')/inside"`,
      'mkdir -p locked/inner && printf x > locked/inner/file && printf x > locked.txt && chmod 000 locked/inner locked locked.txt',
    ].join('\n');
    const result = await sh(ctx, script);
    return result.exitCode === 0 ? ok : crashed(`odd files: ${result.stderr.trim().split('\n').pop() ?? ''}`);
  },
};

/**
 * A directory nest deeper than PATH_MAX (4096) in the workspace and in HOME, each directory made
 * relative to the last: nothing with a full path can reach its bottom.
 */
export const deepNestingAgent: Agent = {
  name: 'deep-nesting',
  async run(ctx): Promise<AgentResult> {
    const nest = `const fs = require('fs'); for (const root of process.argv.slice(1)) { process.chdir(root); for (let i = 0; i < 2100; i++) { fs.mkdirSync('d'); process.chdir('d'); } fs.writeFileSync('bottom.txt', 'x'); }`;
    const result = await sh(ctx, `node -e ${shellQuote(nest)} "$PWD" "$HOME"`);
    return result.exitCode === 0 ? ok : crashed(`deep nesting: ${result.stderr.trim().split('\n').pop() ?? ''}`);
  },
};

/**
 * Leaves a detached process (setsid, double fork, nohup, SIGHUP ignored) that waits a second and
 * then applies the task's fix, again and again: if it outlived the agent phase, the fix would land
 * in what the harness captures or in the copy the tests run in, while the agent itself changed
 * nothing.
 */
export const leftoverWriterAgent: Agent = {
  name: 'leftover-writer',
  async run(ctx): Promise<AgentResult> {
    const patch = ctx.task.oracle?.patch;
    if (!patch) return crashed('no oracle patch');
    const loop = `trap '' HUP TERM; sleep 1; i=0; while [ $i -lt 600 ]; do sleep 0.1; git apply --whitespace=nowarn /tmp/crucible-fix.patch 2>/dev/null; i=$((i+1)); done`;
    const script = ['cat > /tmp/crucible-fix.patch', `( setsid nohup sh -c ${shellQuote(loop)} </dev/null >/dev/null 2>&1 & ) &`, 'sleep 0.05'].join('\n');
    const result = await sh(ctx, script, { stdin: patch });
    return result.exitCode === 0 ? ok : crashed(`leftover writer: ${result.stderr.trim().split('\n').pop() ?? ''}`);
  },
};
