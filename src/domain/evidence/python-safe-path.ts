import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Run at every Python start of a verification run (via PYTHONPATH): with PYTHONSAFEPATH the
 * interpreter no longer puts the working directory (or the script's directory) first on sys.path,
 * where a `pytest.py`, `pluggy/` or `json.py` of the agent's change would be imported instead of the
 * runner, its dependencies or the standard library. That directory is put back at the END, so a
 * repository whose tests import its own modules from the root still runs, but nothing in it can take
 * the place of a module the environment already provides. Our own directory leaves sys.path, and the
 * environment's own sitecustomize (Debian ships one) still runs. On Python < 3.11 PYTHONSAFEPATH
 * does not exist and this does nothing but chain: the module_shadowing check is the defence there.
 */
export const SITECUSTOMIZE = `# Written by crucible for a verification run; see src/domain/evidence/python-safe-path.ts.
import os as _os
import sys as _sys

def _crucible_safe_path():
    here = _os.path.dirname(_os.path.abspath(__file__))
    _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or _os.curdir) != here]
    if not getattr(_sys.flags, "safe_path", False):
        return
    first = _sys.argv[0] if _sys.argv else ""
    if first in ("", "-c", "-m"):
        unsafe = _os.getcwd()
    else:
        unsafe = _os.path.dirname(_os.path.abspath(first))
    if unsafe not in _sys.path:
        _sys.path.append(unsafe)

_crucible_safe_path()
# The environment's own sitecustomize, now that our directory is off sys.path; the import system
# expects an entry under this name when we return, so ours goes back when there is no other.
_ours = _sys.modules.pop("sitecustomize")
try:
    import sitecustomize
except ModuleNotFoundError as _error:
    if _error.name != "sitecustomize":
        raise
finally:
    _sys.modules.setdefault("sitecustomize", _ours)
`;

/**
 * The environment every verification run gets for Python: safe-path mode, and the harness's
 * sitecustomize (in a fresh directory of `resultsDir`, which every executor mounts) first on
 * PYTHONPATH. A test command that sets PYTHONPATH itself keeps safe-path mode, not the append.
 */
export async function pythonSafePathEnv(resultsDir: string): Promise<Record<string, string>> {
  const dir = join(resultsDir, `python-${randomBytes(8).toString('hex')}`);
  await mkdir(dir);
  await writeFile(join(dir, 'sitecustomize.py'), SITECUSTOMIZE, { mode: 0o444 });
  return { PYTHONSAFEPATH: '1', PYTHONPATH: dir };
}
