/**
 * The test guard: content hashes of every file that defines or configures the tests, taken before
 * the agent runs, compared after it stops, and used to put those files back before verification.
 * The harness keeps the snapshot in memory and its copies outside the workspace, so the agent
 * never holds the reference it is judged against.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, lstat, mkdir, open, readdir, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git } from '../workspace/git.js';
import { matcher, type PathMatcher } from './glob.js';
import { looksLikeJUnit, SECTIONED_TEST_CONFIG, testSection, WHOLE_FILE_TEST_CONFIG } from './test-config.js';
import { walkFiles } from './walk.js';

export type TamperKind =
  /** A test file that existed at the baseline has other content now. */
  | 'modified'
  | 'deleted'
  /** Deleted, with its exact content reappearing under another path. */
  | 'renamed'
  /** A file that configures the test run (conftest.py, pytest/vitest/jest config, the test script) was added or changed. */
  | 'config'
  /** A new file that takes a baseline test's place (same name, other extension; a package over a module). */
  | 'shadow'
  /** Anything written into the harness's results directory, where reports are read from. */
  | 'forged_report'
  /**
   * A JUnit-shaped file written in the workspace. Never read by the harness (it reads only the
   * report its own run writes outside the workspace), and often the honest by-product of an agent
   * running the tests, so it is recorded, not judged.
   */
  | 'report'
  /** A new file under the test paths: set aside before verification, not tampering by itself. */
  | 'added';

export interface TamperFinding {
  path: string;
  kind: TamperKind;
  oldPath?: string;
  /** Whether the file was committed at the baseline (false: ignored or generated before the agent ran). */
  tracked?: boolean;
  detail?: string;
}

export interface TestGuardEvidence {
  /** Files hashed before the agent ran. */
  guarded: number;
  findings: TamperFinding[];
  /** False when the workspace was too large to walk completely; the check then fails closed. */
  complete: boolean;
  /** Put back from the baseline before verification. */
  restored?: string[];
  /** New files under the test paths (and new test configuration) removed before verification. */
  removed?: string[];
}

interface GuardedFile {
  hash: string;
  tracked: boolean;
  /** Test-relevant part of a sectioned config file (package.json scripts.test, [tool.pytest]…). */
  section?: string;
}

export interface TestSnapshot {
  workspace: string;
  gitDir: string;
  commit: string;
  /** Where copies of guarded files that git does not hold (ignored, generated) are kept. */
  copyDir: string;
  files: Map<string, GuardedFile>;
  /** Hashes of `.xml` files, so a newly written or rewritten one can be sniffed for JUnit shape. */
  xml: Map<string, string>;
  isTest: PathMatcher;
  isWholeConfig: PathMatcher;
  isSectionedConfig: PathMatcher;
}

/** Files bigger than this are hashed by streaming; all are hashed in full. */
const MAX_SECTION_TEXT = 1024 * 1024;

export interface SnapshotInput {
  workspace: string;
  gitDir: string;
  commit: string;
  testPaths: readonly string[];
  copyDir: string;
}

export async function snapshotTests(input: SnapshotInput): Promise<TestSnapshot> {
  const snapshot: TestSnapshot = {
    workspace: input.workspace,
    gitDir: input.gitDir,
    commit: input.commit,
    copyDir: input.copyDir,
    files: new Map(),
    xml: new Map(),
    isTest: matcher(input.testPaths),
    isWholeConfig: matcher(WHOLE_FILE_TEST_CONFIG),
    isSectionedConfig: matcher(SECTIONED_TEST_CONFIG),
  };
  const tracked = new Set((await git({ gitDir: input.gitDir }, ['ls-tree', '-r', '-z', '--name-only', input.commit])).split('\0').filter(Boolean));
  const walk = await walkFiles(input.workspace);
  for (const path of walk.files) {
    if (path.endsWith('.xml')) snapshot.xml.set(path, await hashPath(join(input.workspace, path)));
    if (!isGuarded(snapshot, path)) continue;
    const abs = join(input.workspace, path);
    const file: GuardedFile = { hash: await hashPath(abs), tracked: tracked.has(path) };
    if (sectionOnly(snapshot, path)) file.section = testSection(path, await readText(abs));
    if (!file.tracked) {
      await mkdir(dirname(join(input.copyDir, path)), { recursive: true });
      await copyPath(abs, join(input.copyDir, path));
    }
    snapshot.files.set(path, file);
  }
  return snapshot;
}

/** What the guard sees now, kept so that restore() acts on exactly what inspect() judged. */
export interface GuardState {
  hashes: Map<string, string>;
  bytecodeDirs: string[];
  findings: TamperFinding[];
  complete: boolean;
}

/**
 * Compares the workspace with the snapshot. `resultsDir` is the harness's directory for reports
 * outside the workspace: it is empty until verification, so anything in it was planted.
 */
export async function inspectTests(snapshot: TestSnapshot, resultsDir?: string): Promise<GuardState> {
  const walk = await walkFiles(snapshot.workspace);
  const hashes = new Map<string, string>();
  const findings: TamperFinding[] = [];
  const added: string[] = [];
  for (const path of walk.files) {
    const abs = join(snapshot.workspace, path);
    if (path.endsWith('.xml')) {
      const hash = await hashPath(abs);
      if (snapshot.xml.get(path) !== hash && looksLikeJUnit(await readHead(abs))) {
        findings.push({ path, kind: 'report', detail: 'a JUnit report written in the workspace (never read by the harness)' });
      }
    }
    if (!isGuarded(snapshot, path)) continue;
    hashes.set(path, await hashPath(abs));
    if (!snapshot.files.has(path)) added.push(path);
  }

  const deleted: string[] = [];
  for (const [path, before] of snapshot.files) {
    const now = hashes.get(path);
    if (now === undefined && sectionOnly(snapshot, path)) {
      if (before.section !== undefined) findings.push({ path, kind: 'config', tracked: before.tracked, detail: 'deleted a file that configures tests' });
    } else if (now === undefined) {
      deleted.push(path);
    } else if (now !== before.hash) {
      const finding = await judgeChange(snapshot, path, before);
      if (finding) findings.push(finding);
    }
  }

  const renamedFrom = new Map<string, string>();
  for (const path of deleted) {
    const before = snapshot.files.get(path) as GuardedFile;
    const target = added.find((a) => hashes.get(a) === before.hash && !renamedFrom.has(a));
    if (target !== undefined) {
      renamedFrom.set(target, path);
      findings.push({ path: target, oldPath: path, kind: 'renamed', tracked: before.tracked });
    } else {
      findings.push({ path, kind: 'deleted', tracked: before.tracked });
    }
  }

  const stems = new Set([...snapshot.files.keys()].filter((p) => snapshot.isTest(p)).map(stem));
  for (const path of added) {
    if (renamedFrom.has(path)) continue;
    if (snapshot.isWholeConfig(path)) findings.push({ path, kind: 'config', detail: 'new test configuration file' });
    else if (sectionOnly(snapshot, path)) {
      const section = testSection(path, await readText(join(snapshot.workspace, path)));
      if (section !== undefined) findings.push({ path, kind: 'config', detail: 'new file configures tests' });
    } else if (shadows(path, stems)) findings.push({ path, kind: 'shadow', detail: 'takes the place of a baseline test' });
    else findings.push({ path, kind: 'added' });
  }

  if (resultsDir !== undefined) {
    for (const name of await listDir(resultsDir)) {
      findings.push({ path: `<results>/${name}`, kind: 'forged_report', detail: 'written into the harness results directory outside the workspace' });
    }
  }
  return { hashes, bytecodeDirs: walk.bytecodeDirs, findings, complete: !walk.truncated };
}

export function guardEvidence(snapshot: TestSnapshot, state: GuardState): TestGuardEvidence {
  return { guarded: snapshot.files.size, findings: state.findings, complete: state.complete };
}

/**
 * Puts the test files back as they were at the baseline: changed or deleted ones restored, new
 * files under the test paths and new test configuration removed, bytecode caches dropped, and the
 * results directory emptied. Config files whose only changes are unrelated to tests are left alone.
 */
export async function restoreTests(snapshot: TestSnapshot, state: GuardState, resultsDir?: string): Promise<{ restored: string[]; removed: string[] }> {
  const restored: string[] = [];
  const removed: string[] = [];
  const fromGit: string[] = [];
  const configFindings = new Set(state.findings.filter((f) => f.kind === 'config').map((f) => f.path));
  for (const [path, before] of snapshot.files) {
    const now = state.hashes.get(path);
    if (now === before.hash) continue;
    if (sectionOnly(snapshot, path) && !configFindings.has(path)) continue;
    restored.push(path);
    if (before.tracked) fromGit.push(path);
    else {
      const abs = join(snapshot.workspace, path);
      await rm(abs, { recursive: true, force: true });
      await mkdir(dirname(abs), { recursive: true });
      await copyPath(join(snapshot.copyDir, path), abs);
    }
  }
  if (fromGit.length > 0) {
    // A directory may now stand where a file was; git cannot check out over it.
    for (const path of fromGit) await rmIfDirectory(join(snapshot.workspace, path));
    await git({ gitDir: snapshot.gitDir, workTree: snapshot.workspace }, ['--literal-pathspecs', 'checkout', snapshot.commit, '--pathspec-from-file=-', '--pathspec-file-nul'], {
      stdin: `${fromGit.join('\0')}\0`,
    });
  }
  for (const path of state.hashes.keys()) {
    if (snapshot.files.has(path)) continue;
    if (sectionOnly(snapshot, path) && !configFindings.has(path)) continue;
    await rm(join(snapshot.workspace, path), { force: true, recursive: true });
    removed.push(path);
  }
  for (const dir of state.bytecodeDirs) await rm(join(snapshot.workspace, dir), { recursive: true, force: true });
  if (resultsDir !== undefined) {
    for (const name of await listDir(resultsDir)) await rm(join(resultsDir, name), { recursive: true, force: true });
  }
  return { restored, removed };
}

async function judgeChange(snapshot: TestSnapshot, path: string, before: GuardedFile): Promise<TamperFinding | undefined> {
  if (snapshot.isTest(path) || snapshot.isWholeConfig(path)) {
    return { path, kind: snapshot.isTest(path) && !snapshot.isWholeConfig(path) ? 'modified' : 'config', tracked: before.tracked };
  }
  const after = testSection(path, await readText(join(snapshot.workspace, path)));
  if (after === before.section) return undefined;
  return { path, kind: 'config', tracked: before.tracked, detail: 'the test configuration in it changed' };
}

/** package.json, pyproject.toml…: only their test sections are guarded. */
function sectionOnly(snapshot: TestSnapshot, path: string): boolean {
  return snapshot.isSectionedConfig(path) && !snapshot.isTest(path) && !snapshot.isWholeConfig(path);
}

function isGuarded(snapshot: TestSnapshot, path: string): boolean {
  return snapshot.isTest(path) || snapshot.isWholeConfig(path) || snapshot.isSectionedConfig(path);
}

/** `test/a.test.mjs` → `test/a.test`; `tests/test_x.py` → `tests/test_x`. */
function stem(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash + 1 ? path.slice(0, dot) : path;
}

function shadows(path: string, stems: ReadonlySet<string>): boolean {
  if (stems.has(stem(path))) return true;
  // A new package directory beside a module of the same name wins the import.
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) if (stems.has(parts.slice(0, i).join('/'))) return true;
  return false;
}

async function hashPath(abs: string): Promise<string> {
  const info = await lstat(abs).catch(() => undefined);
  if (!info) return 'missing';
  if (info.isSymbolicLink()) return `link:${await readlink(abs)}`;
  const hash = createHash('sha256');
  hash.update(await readFile(abs));
  return hash.digest('hex');
}

async function readText(abs: string): Promise<string | undefined> {
  const info = await lstat(abs).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_SECTION_TEXT) return undefined;
  return readFile(abs, 'utf8');
}

async function readHead(abs: string): Promise<string> {
  let handle;
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return '';
  }
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function copyPath(from: string, to: string): Promise<void> {
  const info = await lstat(from).catch(() => undefined);
  if (!info) return;
  if (info.isSymbolicLink()) await symlink(await readlink(from), to);
  else await copyFile(from, to);
}

async function rmIfDirectory(abs: string): Promise<void> {
  const info = await lstat(abs).catch(() => undefined);
  if (info?.isDirectory()) await rm(abs, { recursive: true, force: true });
}

async function listDir(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}
