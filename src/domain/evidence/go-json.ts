/**
 * Reads `go test -json` (test2json) events into test case results. Pure.
 *
 * Ids are `import/path::TestName/subtest`, the form go-junit-report gives (docs/tasks.md), so a task
 * can move between the two without rewriting ids; the `::` marks where the package path ends,
 * which a `/` could not. Every test that ends is a case, parents of subtests included (as
 * go-junit-report does): `pass` → passed, `fail` → failed, `skip` → skipped.
 *
 * A package that failed without a failing test is a failed case of its own: `pkg::[build failed]`
 * when it did not build (`FailedBuild`, or `[build failed]` / `[setup failed]` in its output), else
 * `pkg::[package failed]` (a panic outside tests, TestMain, os.Exit). A test that started but never
 * ended failed (`did not finish`), and a package whose events stop before its own end adds
 * `pkg::[did not finish]`. Unusable: a line that starts like a JSON event but is not one, a test
 * that ends without having started, a package that ends twice.
 */
import type { TestCaseResult } from '../../core/types/index.js';
import { caseOf, firstLine, linesOf, parseGuarded, ReportFormatError, type ReportParseResult } from './report-common.js';

interface GoEvent {
  Action: string;
  Package?: string;
  Test?: string;
  Output?: string;
  Elapsed?: number;
  FailedBuild?: string;
}

interface PackageState {
  open: Map<string, { output: string[] }>;
  cases: TestCaseResult[];
  output: string[];
  ended: boolean;
}

export function parseGoTestJson(text: string): ReportParseResult {
  return parseGuarded('go test -json stream', text, readEvents);
}

function readEvents(text: string): TestCaseResult[] {
  const packages = new Map<string, PackageState>();
  let events = 0;
  const lines = linesOf(text);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    // go prints nothing else on stdout, but a wrapper may (`go: downloading …`); those lines are not events.
    if (!line.startsWith('{')) continue;
    const event = toEvent(line, i + 1);
    if (event.Package === undefined || event.Package === '') continue; // build-output and friends name an ImportPath
    events++;
    const pkg = packages.get(event.Package) ?? newPackage(packages, event.Package);
    apply(pkg, event, i + 1);
  }
  if (events === 0) throw new ReportFormatError('no go test -json events in the output');
  const cases: TestCaseResult[] = [];
  for (const [name, pkg] of packages) {
    if (!pkg.ended) {
      closeOpen(pkg, name, 'did not finish: the package stopped before its end');
      pkg.cases.push(caseOf(`${name}::[did not finish]`, 'failed', 'the events stopped before the package ended: the run was cut short'));
    }
    cases.push(...pkg.cases);
  }
  return cases;
}

function newPackage(packages: Map<string, PackageState>, name: string): PackageState {
  const state: PackageState = { open: new Map(), cases: [], output: [], ended: false };
  packages.set(name, state);
  return state;
}

function toEvent(line: string, lineNo: number): GoEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new ReportFormatError(`line ${lineNo}: not a JSON event`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ReportFormatError(`line ${lineNo}: not a JSON object`);
  const record = raw as Record<string, unknown>;
  const action = record.Action;
  if (typeof action !== 'string') throw new ReportFormatError(`line ${lineNo}: event without an Action`);
  const event: GoEvent = { Action: action };
  for (const key of ['Package', 'Test', 'Output', 'FailedBuild'] as const) {
    const value = record[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new ReportFormatError(`line ${lineNo}: ${key} is not a string`);
    event[key] = value;
  }
  if (typeof record.Elapsed === 'number') event.Elapsed = record.Elapsed;
  return event;
}

function apply(pkg: PackageState, event: GoEvent, lineNo: number): void {
  const name = event.Package ?? '';
  if (pkg.ended && event.Action !== 'output') throw new ReportFormatError(`line ${lineNo}: event for package ${name} after it ended`);
  if (event.Test === undefined) return applyToPackage(pkg, name, event, lineNo);
  const id = `${name}::${event.Test}`;
  switch (event.Action) {
    case 'run':
      if (pkg.open.has(event.Test)) throw new ReportFormatError(`line ${lineNo}: ${id} started twice`);
      pkg.open.set(event.Test, { output: [] });
      return;
    case 'output':
      pkg.open.get(event.Test)?.output.push(event.Output ?? '');
      return;
    case 'pass':
    case 'fail':
    case 'skip': {
      const open = pkg.open.get(event.Test);
      if (open === undefined) throw new ReportFormatError(`line ${lineNo}: ${id} ended (${event.Action}) without having started`);
      pkg.open.delete(event.Test);
      const status = event.Action === 'pass' ? 'passed' : event.Action === 'fail' ? 'failed' : 'skipped';
      const message = status === 'passed' ? undefined : testMessage(open.output);
      pkg.cases.push(caseOf(id, status, message, event.Elapsed === undefined ? undefined : event.Elapsed * 1000));
      return;
    }
    default:
      return; // pause, cont, bench, and actions newer than this parser
  }
}

function applyToPackage(pkg: PackageState, name: string, event: GoEvent, lineNo: number): void {
  if (event.Action === 'output') {
    if (pkg.output.length < 200) pkg.output.push(event.Output ?? '');
    return;
  }
  if (event.Action !== 'pass' && event.Action !== 'fail' && event.Action !== 'skip') return;
  if (pkg.ended) throw new ReportFormatError(`line ${lineNo}: package ${name} ended twice`);
  pkg.ended = true;
  closeOpen(pkg, name, 'did not finish: the package ended while it ran');
  if (event.Action !== 'fail') return;
  const built = event.FailedBuild === undefined && !pkg.output.some((o) => /\[(?:build|setup) failed\]/.test(o));
  if (!built) pkg.cases.push(caseOf(`${name}::[build failed]`, 'failed', firstLine(pkg.output.join('')) ?? 'the package did not build'));
  else if (!pkg.cases.some((c) => c.status === 'failed')) {
    pkg.cases.push(caseOf(`${name}::[package failed]`, 'failed', packageMessage(pkg.output) ?? 'the package failed outside its tests'));
  }
}

function closeOpen(pkg: PackageState, name: string, message: string): void {
  for (const [test, open] of pkg.open) pkg.cases.push(caseOf(`${name}::${test}`, 'failed', testMessage(open.output) ?? message));
  pkg.open.clear();
}

/** The first output line that is not go's own `=== RUN` / `--- FAIL` bookkeeping. */
function testMessage(output: readonly string[]): string | undefined {
  return firstLine(output.filter((o) => !/^\s*(?:=== |--- )/.test(o)).join(''));
}

function packageMessage(output: readonly string[]): string | undefined {
  return firstLine(output.filter((o) => !/^(?:FAIL|ok|PASS)\b/.test(o.trim())).join(''));
}
