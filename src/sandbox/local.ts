import { buildChildEnv } from './env.js';
import type { ExecRequest, ExecResult, Executor, Isolation, SandboxLayout } from './executor.js';
import type { ExecutorOptions } from './executor-options.js';
import { assertRunnable, errorCode, notRunnableResult } from './request-checks.js';
import { spawnBounded } from './spawn-bounded.js';

/** Isolates nothing, and says so: the network, every file the user can write and every secret stay reachable. */
const NO_ISOLATION: Isolation = Object.freeze({ network: false, filesystem: false, hiding: false });

/**
 * Runs commands directly on the host. It still owns the child's lifecycle (process-tree kill,
 * deadline, bounded output) and environment (built from scratch), which is all it can promise.
 * The layout's writable/hidden/readOnly lists and the network mode are not enforced.
 */
export function createLocalExecutor(layout: SandboxLayout, options: ExecutorOptions = {}): Executor {
  return {
    kind: 'local',
    isolation: NO_ISOLATION,
    async exec(request: ExecRequest): Promise<ExecResult> {
      await assertRunnable(request);
      const env = buildChildEnv({ hostEnv: process.env, home: layout.home, tmpdir: layout.tmp, requestEnv: request.env });
      const startedAt = performance.now();
      try {
        return await spawnBounded({
          argv: request.argv,
          cwd: request.cwd,
          env,
          stdin: request.stdin,
          timeoutMs: request.timeoutMs,
          signal: request.signal,
          maxOutputBytes: request.maxOutputBytes,
          killGraceMs: options.killGraceMs,
        });
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'EACCES') {
          return notRunnableResult(request.argv[0] ?? '', code, Math.round(performance.now() - startedAt));
        }
        throw error;
      }
    },
  };
}
