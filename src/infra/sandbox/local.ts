import { buildChildEnv } from './env.js';
import type { ExecRequest, ExecResult, Executor, SandboxLayout } from './executor.js';
import type { ExecutorOptions } from './executor-options.js';
import { findOnPath } from './find-on-path.js';
import { executorCapabilities } from './kinds.js';
import { enforcedLimits, hasLimits, limitSupport, runLimited } from './limits.js';
import { assertRunnable, errorCode, notRunnableResult, refuseEnvironment } from './request-checks.js';
import { spawnBounded } from './spawn-bounded.js';

/**
 * Runs commands directly on the host. It still owns the child's lifecycle (process-tree kill,
 * deadline, bounded output), environment (built from scratch) and the layout's limits, which is
 * all it can promise. The layout's writable/hidden/readOnly lists and the network mode are not
 * enforced: it isolates nothing, and says so.
 */
export function createLocalExecutor(layout: SandboxLayout, options: ExecutorOptions = {}): Executor {
  const limits = limitSupport(options.cgroups !== false);
  const capabilities = executorCapabilities('local', { limits: enforcedLimits(limits) });
  refuseEnvironment('local', layout);
  return {
    kind: 'local',
    capabilities,
    close: async () => {},
    async exec(request: ExecRequest): Promise<ExecResult> {
      await assertRunnable(request);
      const env = buildChildEnv({ hostEnv: process.env, home: layout.home, tmpdir: layout.tmp, requestEnv: request.env });
      const startedAt = performance.now();
      const notRunnable = (code: string | undefined) => notRunnableResult(request.argv[0] ?? '', code, Math.round(performance.now() - startedAt));
      let argv = request.argv;
      if (hasLimits(layout.limits)) {
        // Behind the limit wrappers a missing command would be reported in their words, not a shell's.
        const [command = '', ...args] = request.argv;
        const path = command.includes('/') ? command : findOnPath(command, env.PATH);
        if (path === undefined) return notRunnable('ENOENT');
        argv = [path, ...args];
      }
      try {
        return await runLimited(layout.limits, limits, argv, ({ argv: limited }) =>
          spawnBounded({
            argv: limited,
            cwd: request.cwd,
            env,
            stdin: request.stdin,
            timeoutMs: request.timeoutMs,
            signal: request.signal,
            maxOutputBytes: request.maxOutputBytes,
            killGraceMs: options.killGraceMs,
          }),
        );
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'EACCES') return notRunnable(code);
        throw error;
      }
    },
  };
}
