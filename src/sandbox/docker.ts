import { SandboxUnavailableError } from './errors.js';
import type { Executor, SandboxLayout } from './executor.js';
import type { ExecutorOptions } from './executor-options.js';

/**
 * Runs each phase's commands in one container of the layout's image (or the host's toolchain
 * view), exec'ing into it per command. Contract stub: the implementation lands with issue 12.
 */
export function createDockerExecutor(_layout: SandboxLayout, _options: ExecutorOptions = {}): Executor {
  throw new SandboxUnavailableError('the docker executor is not built yet', 'use --sandbox bwrap');
}
