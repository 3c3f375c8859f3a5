/**
 * `crucible ci`'s setup: the config's commands in the copy of base before it is committed. Its
 * test runs are src/domain/evaluation's, as an attempt's are.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execLimits } from '../../domain/evaluation/index.js';
import { setupFailure, type SetupFailure } from '../../domain/evidence/index.js';
import { createExecutor, type ExecutorFactory, type SandboxKind, type SandboxLayout } from '../../infra/sandbox/index.js';
import type { Limits } from '../../core/types/index.js';
import type { CiSettings } from './config.js';

export interface CiWork {
  /** The scratch directory everything of this evaluation lives in. */
  dir: string;
  /** Where each copy is built; one path for all runs. */
  workspace: string;
  pristine: string;
  sandbox: SandboxKind;
  executorFactory?: ExecutorFactory;
  /** The user's interrupt: kills the running setup command. */
  signal?: AbortSignal;
  /** Shown to nothing the tests run: the checkout itself and Crucible's state directory. */
  hidden: string[];
}

function layoutFor(work: CiWork, limits: Limits): SandboxLayout {
  return {
    writable: [work.workspace],
    hidden: work.hidden,
    readOnly: [],
    home: join(work.dir, 'home'),
    tmp: join(work.dir, 'tmp'),
    limits: execLimits(limits),
  };
}

/** The config's setup commands, in the copy of base before it is committed (network allowed, like a task's setup). */
export async function runSetup(work: CiWork, settings: CiSettings): Promise<void> {
  if (settings.setup.length === 0) return;
  for (const dir of [join(work.dir, 'home'), join(work.dir, 'tmp')]) await mkdir(dir, { recursive: true });
  const executor = (work.executorFactory ?? createExecutor)(work.sandbox, layoutFor(work, settings.limits));
  try {
    for (const command of settings.setup) {
      const result = await executor.exec({
        argv: ['sh', '-c', command],
        cwd: work.workspace,
        env: { CI: 'true' },
        timeoutMs: settings.limits.setupTimeoutMs,
        network: 'host',
        ...(work.signal ? { signal: work.signal } : {}),
      });
      work.signal?.throwIfAborted();
      if (result.exitCode !== 0) throw new CiSetupError(setupFailure(command, result, settings.limits.setupTimeoutMs));
    }
  } finally {
    await executor.close();
  }
}

/**
 * The config's setup failed: the evaluation cannot start (exit 2 with the command and the line that
 * says why); `failure.excerpt` is the output that shows the reason, for the report directory.
 */
export class CiSetupError extends Error {
  override readonly name = 'CiSetupError';
  constructor(readonly failure: SetupFailure) {
    super(failure.message);
  }
}
