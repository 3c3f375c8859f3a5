import { resolve } from 'node:path';
import { shownPath } from './io.js';
import type { Command } from 'commander';

/** The default every state-directory option (`-o, --out <dir>`) shares; file outputs have none or another. */
export const STATE_DIR_DEFAULT = '.crucible';

/**
 * Makes a command's state directory absolute once, before its action runs. A relative one (the
 * default `.crucible`) means the directory the user ran Crucible from, but the engine hands paths
 * under it to git and sandboxes that run with another cwd, where it would name nothing (issue 27:
 * `crucible tests` failed with "not a git repository: '.crucible/tests/…/baseline.git'").
 */
export function resolveStateDirOption(command: Command, cwd: string): void {
  const option = command.options.find((o) => o.attributeName() === 'out');
  if (option?.defaultValue !== STATE_DIR_DEFAULT) return;
  const value: unknown = command.getOptionValue('out');
  if (typeof value === 'string' && value !== '') command.setOptionValue('out', resolve(cwd, value));
}

/**
 * A state directory as a message shows it: relative to the working directory when it lies inside
 * it (`.crucible`, as the user typed or defaulted it), else absolute.
 */
export function shownStateDir(dir: string, cwd: string): string {
  return shownPath({ cwd }, dir);
}
