/**
 * The test guard, on trees: the agent's captured change is compared with the baseline, and every
 * protected path — files that define the tests, test-runner configuration in any form and at any
 * depth, installed dependencies, the paths test reports are written to — is taken from the
 * baseline in the tree that is verified. Editing, deleting or renaming a baseline test, or changing
 * the test part of a configuration file, is tampering; new tests and new configuration are set
 * aside and judged no further (an agent may add tests; they simply do not grade it).
 */
import { git, editTree, entry as indexEntry, removal, type Baseline, type GitTarget, type IndexUpdate } from '../../infra/workspace/index.js';
import { matcher } from './glob.js';
import { findModuleShadows, type ModuleShadow } from './module-shadows.js';
import { DEPENDENCY_PATHS, SECTIONED_TEST_CONFIG, testSection, WHOLE_FILE_TEST_CONFIG } from './test-config.js';

export type TamperKind =
  /** A test file that existed at the baseline has other content (or another file type) now. */
  | 'modified'
  | 'deleted'
  /** Deleted, with its exact content reappearing under another path. */
  | 'renamed'
  /** A baseline file that configures the test run was changed or deleted (its test part, for sectioned files). */
  | 'config'
  /** A new file outside the test paths that takes a baseline test's place (same stem; a package over a module). */
  | 'shadow'
  /** A command wrote, or tried to write, where the harness reads test reports. */
  | 'forged_report'
  /** Recorded only: a JUnit-shaped file in the workspace (the harness never reads one). */
  | 'report'
  /** A new test file or new test configuration: set aside before verification, not tampering. */
  | 'added';

export interface TamperFinding {
  path: string;
  kind: TamperKind;
  oldPath?: string;
  /** Whether the file was committed at the baseline. */
  tracked?: boolean;
  detail?: string;
}

export interface TestGuardEvidence {
  /** Protected files in the baseline. */
  guarded: number;
  findings: TamperFinding[];
  /** Always true now that the guard reads trees: kept for attempt.json readers. */
  complete: boolean;
  /** Taken from the baseline in the verified tree. */
  restored?: string[];
  /** Left out of the verified tree (new tests, new configuration). */
  removed?: string[];
  /** Added files that would be imported in place of the standard library or the runner's modules; left out too. */
  moduleShadows?: ModuleShadow[];
}

export interface ProtectInput {
  baseline: Baseline;
  /** The agent's change as captured (captureChange). */
  tree: string;
  testPaths: readonly string[];
  /** Workspace-relative paths test commands write reports to (tests.junit, held_out.junit). */
  reportPaths: readonly string[];
}

export interface ProtectedChange {
  /** The tree that is verified: the agent's change with every protected path as at the baseline. */
  tree: string;
  evidence: TestGuardEvidence;
  /** Changed files under dependency paths, taken from the baseline (not graded). */
  dependencies: string[];
}

interface RawEntry {
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  status: string;
  path: string;
}

type PathClass = 'test' | 'config' | 'sectioned' | 'dependency' | 'report';

/** Sectioned config files larger than this are compared whole. */
const MAX_SECTION_BYTES = 1024 * 1024;

export async function protectTests(input: ProtectInput): Promise<ProtectedChange> {
  const { baseline } = input;
  const target: GitTarget = { gitDir: baseline.store };
  const classify = classifier(input.testPaths, input.reportPaths);
  const baselinePaths = (await git(target, ['ls-tree', '-r', '-z', '--name-only', baseline.tree])).split('\0').filter(Boolean);
  const guarded = baselinePaths.filter((path) => classify(path) !== undefined && classify(path) !== 'dependency').length;
  const entries = input.tree === baseline.tree ? [] : parseRaw(await git(target, ['diff-tree', '-r', '-z', '--no-renames', baseline.tree, input.tree]));

  const findings: TamperFinding[] = [];
  const restored: string[] = [];
  const removed: string[] = [];
  const dependencies: string[] = [];
  const updates: IndexUpdate[] = [];
  const backToBaseline = (entry: RawEntry): void => {
    if (entry.oldMode === '000000') {
      updates.push(removal(entry.path));
      removed.push(entry.path);
    } else {
      updates.push(indexEntry(entry.oldMode, entry.oldSha, entry.path));
      restored.push(entry.path);
    }
  };

  const shadowing = moduleShadowsOf(baselinePaths, entries, classify);
  const deletedTests: RawEntry[] = [];
  const testStems = new Set(baselinePaths.filter((p) => classify(p) === 'test').map(stem));
  for (const entry of entries) {
    const kind = classify(entry.path);
    const added = entry.status === 'A';
    if (kind === undefined) {
      if (shadowing.paths.has(entry.path)) {
        backToBaseline(entry);
        continue;
      }
      if (added && shadows(entry.path, testStems)) {
        findings.push({ path: entry.path, kind: 'shadow', detail: 'takes the place of a baseline test' });
        backToBaseline(entry);
      }
      continue;
    }
    if (kind === 'dependency' || kind === 'report') {
      if (kind === 'dependency') dependencies.push(entry.path);
      backToBaseline(entry);
      continue;
    }
    if (kind === 'sectioned') {
      const before = entry.oldMode === '000000' ? undefined : await sectionOf(target, entry.path, entry.oldSha);
      const after = entry.newMode === '000000' ? undefined : await sectionOf(target, entry.path, entry.newSha);
      if (before === after) continue;
      if (added) findings.push({ path: entry.path, kind: 'added', detail: 'new file that configures tests' });
      else
        findings.push({
          path: entry.path,
          kind: 'config',
          tracked: true,
          detail: entry.status === 'D' ? 'deleted a file that configures tests' : 'the test configuration in it changed',
        });
      backToBaseline(entry);
      continue;
    }
    if (added) findings.push({ path: entry.path, kind: 'added', ...(kind === 'config' ? { detail: 'new test configuration' } : {}) });
    else if (entry.status === 'D' && kind === 'test') deletedTests.push(entry);
    else findings.push({ path: entry.path, kind: kind === 'config' ? 'config' : entry.status === 'D' ? 'deleted' : 'modified', tracked: true });
    backToBaseline(entry);
  }

  // A deleted test whose exact content was added elsewhere was renamed.
  const addedBySha = new Map(entries.filter((e) => e.status === 'A').map((e) => [e.newSha, e.path]));
  for (const entry of deletedTests) {
    const to = addedBySha.get(entry.oldSha);
    if (to !== undefined) {
      addedBySha.delete(entry.oldSha);
      const asAdded = findings.findIndex((f) => f.kind === 'added' && f.path === to);
      if (asAdded !== -1) findings.splice(asAdded, 1);
      findings.push({ path: to, oldPath: entry.path, kind: 'renamed', tracked: true });
    } else {
      findings.push({ path: entry.path, kind: 'deleted', tracked: true });
    }
  }

  const tree = await editTree(baseline, input.tree, updates);
  const moduleShadows = shadowing.found.length > 0 ? { moduleShadows: shadowing.found } : {};
  return { tree, evidence: { guarded, findings, complete: true, restored, removed, ...moduleShadows }, dependencies };
}

/** Module shadows among the change's added ordinary files (tests, configuration and dependencies are judged above). */
function moduleShadowsOf(
  baselinePaths: readonly string[],
  entries: readonly RawEntry[],
  classify: (path: string) => PathClass | undefined,
): { found: ModuleShadow[]; paths: Set<string> } {
  const deleted = new Set(entries.filter((e) => e.status === 'D').map((e) => e.path));
  const added = entries.filter((e) => e.status === 'A').map((e) => e.path);
  const afterPaths = [...baselinePaths.filter((p) => !deleted.has(p)), ...added];
  const found = findModuleShadows({ baselinePaths, afterPaths, added: added.filter((p) => classify(p) === undefined) });
  return { found, paths: new Set(found.map((f) => f.path)) };
}

function classifier(testPaths: readonly string[], reportPaths: readonly string[]): (path: string) => PathClass | undefined {
  const isTest = matcher(testPaths);
  const isConfig = matcher(WHOLE_FILE_TEST_CONFIG);
  const isSectioned = matcher(SECTIONED_TEST_CONFIG);
  const isDependency = matcher(DEPENDENCY_PATHS);
  // A report path, or anything standing where one of its directories must be.
  const reports = new Set(reportPaths.flatMap((p) => p.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  return (path) => {
    if (reports.has(path)) return 'report';
    if (isDependency(path)) return 'dependency';
    if (isConfig(path)) return 'config';
    if (isTest(path)) return 'test';
    if (isSectioned(path)) return 'sectioned';
    return undefined;
  };
}

async function sectionOf(target: GitTarget, path: string, sha: string): Promise<string | undefined> {
  const size = Number((await git(target, ['cat-file', '-s', sha])).trim());
  if (size > MAX_SECTION_BYTES) return `whole:${sha}`;
  return testSection(path, await git(target, ['cat-file', 'blob', sha]));
}

/** `git diff-tree -r -z` raw output: ":old new oldsha newsha S\0path\0" per entry. */
function parseRaw(out: string): RawEntry[] {
  const fields = out.split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const head = fields[i] ?? '';
    if (!head.startsWith(':')) break;
    const [oldMode = '', newMode = '', oldSha = '', newSha = '', status = ''] = head.slice(1).split(' ');
    entries.push({ oldMode, newMode, oldSha, newSha, status: status.slice(0, 1), path: fields[i + 1] ?? '' });
  }
  return entries;
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
