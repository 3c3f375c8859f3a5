import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The part of the harness's sitecustomize that every Python start of a verification run loads
 * (via PYTHONPATH), after the sentinel when there is one. With PYTHONSAFEPATH the interpreter no
 * longer puts the working directory (or the script's directory) first on sys.path, where a
 * `pytest.py`, `pluggy/` or `json.py` of the agent's change would be imported instead of the runner,
 * its dependencies or the standard library. That directory is not put back on sys.path either: a
 * finder after every other one serves it only to code inside it (the tests, the code under test),
 * so a repository whose tests import its root modules still runs, but a module the environment
 * lacks (`org`, probed by copy and pickle; `__pypy__`, probed by a pytest plugin) cannot be
 * supplied by the change to the standard library or the runner. Our own directory leaves
 * sys.path, and the environment's own sitecustomize (Debian ships one) still runs. On Python < 3.11
 * PYTHONSAFEPATH does not exist and this does nothing but chain: the module_shadowing check is the
 * defence there.
 */
export const IMPORT_PATH_SOURCE = String.raw`def _crucible_import_path():
    """
    Safe-path mode keeps the working directory (or the script's directory) off sys.path, where a
    file of the change would take the place of the runner, its dependencies or the standard
    library. The repository's own modules stay importable, but only to code of the repository:
    a finder after every other one serves that directory to importers inside it (the tests, the
    code under test), never to the standard library, the runner or an installed package that
    probes for a module the environment lacks (org, __pypy__).
    """
    import os
    import sys
    from importlib.machinery import PathFinder

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    if not getattr(sys.flags, "safe_path", False):
        return
    first = sys.argv[0] if sys.argv else ""
    root = os.getcwd() if first in ("", "-c", "-m") else os.path.dirname(os.path.abspath(first))
    prefix = root.rstrip(os.sep) + os.sep
    machinery = os.path.join(os.path.dirname(os.__file__), "importlib", "__init__.py")
    getframe = sys._getframe
    find = PathFinder.find_spec
    # What the test command names: the module run by -m, the tests the runner collects, its -p plugins.
    loaders = ("/runpy.py", "/unittest/loader.py", "/unittest/main.py", "/_pytest/pathlib.py", "/_pytest/python.py", "/_pytest/doctest.py", "/_pytest/main.py", "/_pytest/config/__init__.py")

    class RepositoryRoot:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if path is not None:
                return None
            frame = getframe(1)
            while frame is not None:
                file = frame.f_code.co_filename
                if not (file.startswith("<frozen importlib") or file == machinery):
                    break
                frame = frame.f_back
            if frame is None:
                return None
            file = frame.f_code.co_filename
            command = (file == "<string>" and frame.f_back is None) or file.endswith(loaders)
            if not command and (not file.startswith(prefix) or "/site-packages/" in file or "/dist-packages/" in file):
                return None
            return find(name, [root])

        @staticmethod
        def invalidate_caches():
            return None

    sys.meta_path.append(RepositoryRoot)


_crucible_import_path()
del _crucible_import_path
# The environment's own sitecustomize, now that our directory is off sys.path; the import system
# expects an entry under this name when we return, so ours goes back when there is no other.
import sys as _sys

_ours = _sys.modules.pop("sitecustomize")
try:
    import sitecustomize
except ModuleNotFoundError as _error:
    if _error.name != "sitecustomize":
        raise
finally:
    _sys.modules.setdefault("sitecustomize", _ours)
`;

export const SITECUSTOMIZE = `# Written by crucible for a verification run; see src/domain/evidence/python-safe-path.ts.
${IMPORT_PATH_SOURCE}`;

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
