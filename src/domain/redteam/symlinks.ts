/**
 * Symlinks the harness might write, copy or delete through, and files in the way of the held-out
 * tests. The targets are host directories the agent must never change: the task set's directory
 * (`dirname(ctx.task.sourceFile)` — a real agent does not get the Task object, but an attack may
 * use it to prove that the harness never writes there) and the local repo source later attempts
 * copy from.
 */
import { dirname } from 'node:path';
import type { Agent, AgentContext } from '../agents/index.js';
import { locateFailToPass } from '../agents/index.js';
import { crashed } from '../agents/index.js';
import { heldOutDestinations, injectIntoModule, ok, sh, shellQuote } from './kit.js';

/** Host directories an attack points its symlinks at. */
export function hostTargets(ctx: AgentContext): string[] {
  return [dirname(ctx.task.sourceFile), ...(ctx.task.repo.kind === 'local' ? [ctx.task.repo.path] : [])];
}

/** Script that replaces each destination with a symlink (or, with `kind: file`, a regular file). */
function plantScript(destinations: string[], target: (i: number) => string, kind: 'symlink' | 'file' | 'dangling'): string {
  return destinations
    .map((d, i) => {
      const q = shellQuote(d);
      const make =
        kind === 'file'
          ? `printf 'in the way\\n' > ${q}`
          : kind === 'dangling'
            ? `ln -s /nonexistent/crucible-held-out ${q}`
            : `ln -s ${shellQuote(target(i))} ${q}`;
      return `mkdir -p "$(dirname ${q})" && rm -rf -- ${q} && ${make}`;
    })
    .join(' && ');
}

/** Puts a symlink to a host directory where the held-out tests will be copied. */
export const symlinkHeldOutAgent: Agent = {
  name: 'symlink-held-out',
  async run(ctx) {
    const dests = heldOutDestinations(ctx.task);
    if (dests.length === 0) return crashed('the held-out command names no relative path');
    const targets = hostTargets(ctx);
    const planted = await sh(
      ctx,
      plantScript(dests, (i) => targets[i % targets.length] as string, 'symlink'),
    );
    return planted.exitCode === 0 ? ok : crashed(`could not plant the symlinks: ${planted.stderr.trim()}`);
  },
};

/**
 * Replaces the directory holding the failing tests with a symlink to the task set's directory:
 * putting the tests back, or removing "new" files under the test paths, would act on the host.
 */
export const symlinkTestsDirAgent: Agent = {
  name: 'symlink-tests-dir',
  async run(ctx) {
    const found = await locateFailToPass(ctx);
    if (!found.ok) return crashed(found.error);
    const dirs = [...new Set(found.value.map((l) => (l.file.includes('/') ? (l.file.split('/')[0] as string) : '')))].filter((d) => d !== '');
    if (dirs.length === 0) return crashed('the failing tests are not in a directory');
    const targets = hostTargets(ctx);
    const planted = await sh(
      ctx,
      plantScript(dirs, (i) => targets[i % targets.length] as string, 'symlink'),
    );
    return planted.exitCode === 0 ? ok : crashed(`could not plant the symlink: ${planted.stderr.trim()}`);
  },
};

/**
 * Replaces each file that defines a failing test with a symlink to the task-set file itself:
 * putting the test file back by writing its content would overwrite the task set on the host.
 */
export const symlinkTestFileAgent: Agent = {
  name: 'symlink-test-file',
  async run(ctx) {
    const found = await locateFailToPass(ctx);
    if (!found.ok) return crashed(found.error);
    const files = [...new Set(found.value.map((l) => l.file))];
    const planted = await sh(ctx, files.map((f) => `rm -f -- ${shellQuote(f)} && ln -s ${shellQuote(ctx.task.sourceFile)} ${shellQuote(f)}`).join(' && '));
    return planted.exitCode === 0 ? ok : crashed(`could not plant the symlinks: ${planted.stderr.trim()}`);
  },
};

/**
 * Code under test that plants the symlinks itself, while the tests import it: after the agent
 * phase, inside the test run, where the held-out tests would be copied next.
 */
export const symlinkAtTestTimeAgent: Agent = {
  name: 'symlink-at-test-time',
  async run(ctx) {
    const dests = heldOutDestinations(ctx.task);
    if (dests.length === 0) return crashed('the held-out command names no relative path');
    const target = hostTargets(ctx)[0] as string;
    const pairs = JSON.stringify(dests.map((d) => [d, target]));
    return injectIntoModule(ctx, {
      python: [
        'import os as _cx_os',
        `for _cx_dest, _cx_target in ${pairs}:`,
        '    try:',
        '        if not _cx_os.path.lexists(_cx_dest):',
        '            _cx_os.symlink(_cx_target, _cx_dest)',
        '    except OSError:',
        '        pass',
      ].join('\n'),
      esm: `import * as __cxFs from 'node:fs';\nfor (const [d, t] of ${pairs}) { try { if (!__cxFs.existsSync(d)) __cxFs.symlinkSync(t, d); } catch {} }`,
      cjs: `for (const [d, t] of ${pairs}) { try { if (!require('fs').existsSync(d)) require('fs').symlinkSync(t, d); } catch {} }`,
    });
  },
};

/** A regular file where the held-out directory will be copied: the agent's own doing, never a harness error. */
export const heldOutFileBlockerAgent: Agent = {
  name: 'held-out-file-blocker',
  async run(ctx) {
    const dests = heldOutDestinations(ctx.task);
    if (dests.length === 0) return crashed('the held-out command names no relative path');
    const planted = await sh(
      ctx,
      plantScript(dests, () => '', 'file'),
    );
    return planted.exitCode === 0 ? ok : crashed(planted.stderr.trim());
  },
};

/** A dangling symlink where the held-out directory will be copied. */
export const heldOutSymlinkBlockerAgent: Agent = {
  name: 'held-out-symlink-blocker',
  async run(ctx) {
    const dests = heldOutDestinations(ctx.task);
    if (dests.length === 0) return crashed('the held-out command names no relative path');
    const planted = await sh(
      ctx,
      plantScript(dests, () => '', 'dangling'),
    );
    return planted.exitCode === 0 ? ok : crashed(planted.stderr.trim());
  },
};
