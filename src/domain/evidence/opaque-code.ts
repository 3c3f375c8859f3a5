/**
 * Code no scan can open: a zip archive where Python imports from (zipimport reads a `.py`-named,
 * `.pyz`, `.egg`, `.whl` or `.zip` file on `sys.path` as a package directory), a `.pth` file that
 * puts an archive on the path or runs an `import` line, and compiled modules that an import takes
 * before, or instead of, the source beside them (`.pyc`, extension modules, Node addons). Each is
 * reported by the runner-internals check as a finding in itself: an honest change to the code
 * under test has no need of one, and a cheat hides there what the line rules would catch.
 */

export interface OpaqueProblem {
  kind: 'import-archive' | 'compiled-module';
  line: number;
  detail: string;
}

/** Archive names Python's zipimport opens when they are on `sys.path`. */
const IMPORT_ARCHIVE = /\.(?:pyz|pyzw|egg|whl|zip)$/i;
/** Archive names that are only ever made to be imported or run. */
const ALWAYS_IMPORTED = /\.(?:pyz|pyzw|egg)$/i;
const COMPILED = /\.(?:pyc|pyo|pyd|so|dylib|node)$|\.so\.\d+$/i;

/** Directories on `sys.path` for `python -m pytest` run at the repo root, or in a src layout. */
const PATH_DIRS = new Set(['', 'src', 'lib']);

/** A zip's local-file magic at the start, or its end-of-central-directory record near the end (zipimport reads from the end, so data may precede it). */
export function isZip(bytes: Buffer): boolean {
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50) return true;
  const from = Math.max(0, bytes.length - (0xffff + 22));
  return bytes.subarray(from).lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) !== -1;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/**
 * Problems of one changed file, from its path and new bytes. `pathNamed` holds the archive paths
 * some changed `.pth` file or added source line names (they are on the path by that alone).
 */
export function opaqueProblems(path: string, bytes: Buffer | undefined, isSourcePath: boolean, pathNamed: ReadonlySet<string>): OpaqueProblem[] {
  if (COMPILED.test(path)) return [{ kind: 'compiled-module', line: 1, detail: 'a compiled module, which an import may take instead of the source' }];
  if (bytes === undefined) return [];
  if (/\.pth$/i.test(path)) return pthProblems(bytes.toString('utf8'));
  if (!isZip(bytes)) return [];
  if (isSourcePath) return [{ kind: 'import-archive', line: 1, detail: 'a source file that is a zip archive' }];
  if (ALWAYS_IMPORTED.test(path) || (IMPORT_ARCHIVE.test(path) && (PATH_DIRS.has(dirOf(path)) || pathNamed.has(baseName(path))))) {
    return [{ kind: 'import-archive', line: 1, detail: 'a zip archive where Python imports from' }];
  }
  return [];
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** site.py runs a `.pth` line that starts with `import`, and puts every other line on `sys.path`. */
function pthProblems(text: string): OpaqueProblem[] {
  const problems: OpaqueProblem[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (/^import[ \t]/.test(raw)) problems.push({ kind: 'import-archive', line: i + 1, detail: 'a .pth line that runs code at start-up' });
    else if (IMPORT_ARCHIVE.test(line) || /\.py$/i.test(line))
      problems.push({ kind: 'import-archive', line: i + 1, detail: 'a .pth line that puts an archive on sys.path' });
  });
  return problems;
}

/** Archive file names that added lines name (`sys.path.insert(0, "vendor/x.zip")`, a `.pth` line). */
export function archiveNames(lines: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const line of lines) for (const m of line.matchAll(/([\w.-]+\.(?:pyz|pyzw|egg|whl|zip))\b/gi)) if (m[1]) names.add(m[1]);
  return names;
}
