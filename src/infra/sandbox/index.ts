/** The sandbox module's public entry; nothing outside src/infra/sandbox imports its other files. */
import { createBwrapExecutor } from './bwrap.js';
import { createDockerExecutor } from './docker.js';
import type { Executor, SandboxKind, SandboxLayout } from './executor.js';
import type { ExecutorOptions } from './executor-options.js';
import { createLocalExecutor } from './local.js';

export type {
  ContainerEnvironment,
  ExecRequest,
  ExecLimitName,
  ExecLimits,
  ExecResult,
  Executor,
  ExecutorCapabilities,
  NetworkMode,
  SandboxCapabilities,
  SandboxKind,
  SandboxLayout,
  OverlayDriver,
  TreeOverlay,
} from './executor.js';
export { overlayMountArgv, overlayPathsMountable } from './tree-overlay.js';
export { startOverlayHolder, type OverlayHolder } from './overlay-holder.js';
export type { ExecutorOptions } from './executor-options.js';
export type { BwrapDetection, DetectOptions } from './detect.js';
export { detectBwrap } from './detect.js';
export type { ResolveOptions, SafestSandbox } from './choice.js';
export { resolveSafestSandbox, resolveSandbox, sandboxProbeFile } from './choice.js';
import { SandboxSetupError } from './errors.js';
import { sandboxTraits } from './kinds.js';
export { SandboxSetupError, SandboxUnavailableError } from './errors.js';
export { sandboxTraits, traitsOfRecorded, type SandboxTraits } from './kinds.js';

/**
 * How the engine, `crucible ci` and evaluation make their executors: createExecutor by default,
 * a fake in tests where the sandbox is not what is being tested.
 */
export type ExecutorFactory = (kind: SandboxKind, layout: SandboxLayout) => Executor;

/** An executor for one attempt; `layout` is fixed for its lifetime. */
export function createExecutor(kind: SandboxKind, layout: SandboxLayout, options: ExecutorOptions = {}): Executor {
  // An executor that mounts none would leave the tree an empty mount point.
  if (layout.overlay !== undefined && !sandboxTraits(kind).treeOverlay)
    throw new SandboxSetupError(`the ${kind} executor cannot give a tree as an overlay; give it a copy`);
  switch (kind) {
    case 'local':
      return createLocalExecutor(layout, options);
    case 'bwrap':
      return createBwrapExecutor(layout, options);
    case 'docker':
      return createDockerExecutor(layout, options);
  }
}
