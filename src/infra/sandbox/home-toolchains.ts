import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * What a toolchain under the user's home needs besides its bin directory, by the name of its top
 * directory: pyenv's shims run `libexec/pyenv`, which reads `version` and runs `versions/*`; a
 * `pip --user` script in ~/.local/bin imports from ~/.local/lib. Everything else in the top
 * directory (pyenv's git checkout, ~/.local/share with keyrings, ~/.cargo's credentials and
 * config) stays out of view.
 */
const RUNTIME_BESIDE_BIN: Readonly<Record<string, readonly string[]>> = {
  '.pyenv': ['bin', 'shims', 'libexec', 'plugins', 'pyenv.d', 'versions', 'version'],
  '.local': ['lib'],
  '.cargo': ['bin'],
};

const BIN_NAMES = new Set(['bin', 'sbin', 'shims']);

/**
 * The directories (and files) to show for a toolchain directory `parts` (its path relative to the
 * user's home, split): a bin directory two or more levels down is shown with its parent, the
 * toolchain's own prefix (~/.nvm/versions/node/v20 for its bin, as /opt/node-20 elsewhere); a
 * directory right under a top directory with the runtime listed for that top directory; a top
 * directory itself (PYENV_ROOT) as that runtime alone, or, for one not listed, as itself.
 */
export function homeToolchainDirs(userHome: string, parts: readonly string[]): string[] {
  const top = parts[0];
  if (top === undefined) return [];
  const dir = join(userHome, ...parts);
  if (parts.length >= 3 && BIN_NAMES.has(basename(dir))) return [dirname(dir)];
  const runtime = (RUNTIME_BESIDE_BIN[top] ?? []).map((name) => join(userHome, top, name)).filter((path) => existsSync(path));
  if (parts.length === 1) return runtime.length > 0 ? runtime : [dir];
  return [dir, ...runtime.filter((path) => path !== dir)];
}
