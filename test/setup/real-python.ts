import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/**
 * Where `python3` on PATH is a version manager's shim (pyenv's, on this machine and CI's), every
 * Python process the tests start (pytest at each baseline, after the agent, held-out runs) first
 * runs the shim's shell script and the manager itself: about 0.4 s of CPU each, for nothing the
 * tests look at. The interpreter the shim would pick goes first on PATH instead, so the same
 * Python (and the same pytest) runs, directly. A machine without a shim is left as it is.
 */
export default function realPythonFirst(): void {
  const path = process.env.PATH ?? '';
  const onPath = path
    .split(delimiter)
    .map((dir) => join(dir, 'python3'))
    .find((candidate) => {
      try {
        realpathSync(candidate);
        return true;
      } catch {
        return false;
      }
    });
  if (onPath === undefined) return;
  const asked = spawnSync(onPath, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const executable = asked.status === 0 ? asked.stdout.trim() : '';
  if (executable === '' || realpathSync(onPath) === realpathSync(executable)) return;
  process.env.PATH = [dirname(executable), path].join(delimiter);
}
