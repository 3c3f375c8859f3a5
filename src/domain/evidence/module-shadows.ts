import { PYTHON_PLUGIN_NAMES, PYTHON_RUNNER_NAMES, PYTHON_STDLIB_NAMES } from './python-module-names.js';

/** A file of the change that would be imported in place of a module from outside the repository. */
export interface ModuleShadow {
  path: string;
  /** The top-level import name it provides. */
  name: string;
  /** The directory (repo-relative, `.` for the root) that, on sys.path, gives it that name. */
  root: string;
  /** What it takes the place of. */
  shadows: 'standard library' | 'test runner or its dependencies';
}

/** `name.py`, `name.pyc`, `name.pyw`, and extension modules `name.so`, `name.cpython-311-x86_64-linux-gnu.so`, `name.pyd`. */
const MODULE_FILE = /^([A-Za-z_][A-Za-z0-9_]*)\.(?:py|pyw|pyc|so|pyd|[^/]+\.(?:so|pyd))$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The top-level name `parts` (a path below a sys.path directory, split) is imported as, or undefined
 * when it is not importable: a module file directly there, or a Python file anywhere inside a
 * package or namespace directory there.
 */
function importName(parts: readonly string[]): string | undefined {
  const last = parts[parts.length - 1] ?? '';
  const file = MODULE_FILE.exec(last);
  if (!file) return undefined;
  if (parts.length === 1) return file[1];
  const top = parts[0] ?? '';
  return IDENTIFIER.test(top) ? top : undefined;
}

/** The top-level name at sys.path directory `root` a baseline path provides, importable or not. */
function providedName(parts: readonly string[]): string {
  const first = parts[0] ?? '';
  return parts.length === 1 ? (first.split('.')[0] ?? first) : first;
}

function shadowKind(name: string): ModuleShadow['shadows'] | undefined {
  if (PYTHON_STDLIB_NAMES.has(name)) return 'standard library';
  if (PYTHON_RUNNER_NAMES.has(name) || PYTHON_PLUGIN_NAMES.has(name)) return 'test runner or its dependencies';
  return undefined;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at === -1 ? '' : path.slice(0, at);
}

/**
 * Added files whose import name shadows the standard library or the test runner's modules from a
 * directory that can be on the test's sys.path: the repository root (`python -m pytest`, rootdir
 * insertion), and every directory that is not itself a package (no `__init__.py` after the change),
 * which is where pytest's prepend import mode puts a test file's or conftest's directory, and where
 * a `src/` layout or a script's directory is. A name the baseline already provides at that
 * directory is the project's own module (the repository may be pytest or numpy), not a shadow.
 */
export function findModuleShadows(input: { baselinePaths: readonly string[]; afterPaths: readonly string[]; added: readonly string[] }): ModuleShadow[] {
  const packages = new Set(input.afterPaths.filter((p) => p === '__init__.py' || p.endsWith('/__init__.py')).map(parentOf));
  const atBaseline = new Set<string>();
  for (const path of input.baselinePaths) {
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) atBaseline.add(`${parts.slice(0, i).join('/')}\0${providedName(parts.slice(i))}`);
  }
  const shadows: ModuleShadow[] = [];
  for (const path of input.added) {
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const root = parts.slice(0, i).join('/');
      if (root !== '' && packages.has(root)) continue;
      const name = importName(parts.slice(i));
      if (name === undefined || atBaseline.has(`${root}\0${name}`)) continue;
      const kind = shadowKind(name);
      if (kind === undefined) continue;
      shadows.push({ path, name, root: root === '' ? '.' : root, shadows: kind });
      break;
    }
  }
  return shadows;
}
