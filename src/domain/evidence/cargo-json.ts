/**
 * Reads libtest's JSON events (`cargo test -- -Z unstable-options --format json`, and nextest's
 * `--message-format libtest-json`) into test case results. Pure.
 *
 * Ids: libtest names a test by its module path (`tests::adds`), the id cargo2junit gives; nextest
 * writes `binary-id$path`, and the `$` becomes `::` (`my-crate::integration::tests::adds`), the id
 * nextest's own JUnit gives. `ok` → passed, `failed` → failed (message: the first line of its
 * captured output), `ignored` → skipped.
 *
 * A suite (one test binary) whose events stop before its end means the binary died: its started
 * tests fail (`did not finish`) and `[suite N did not finish]` is added as a failed case. Unusable:
 * a line that starts like a JSON event but is not one, a test event outside a suite, a test that
 * ends twice, and a suite whose closing counts (or `test_count`) disagree with the tests seen.
 */
import type { TestCaseResult } from '../../core/types/index.js';
import { caseOf, firstLine, linesOf, parseGuarded, ReportFormatError, type ReportParseResult } from './report-common.js';

interface Suite {
  number: number;
  testCount?: number;
  started: Map<string, true>;
  seen: Set<string>;
  counts: { passed: number; failed: number; ignored: number };
}

export function parseCargoTestJson(text: string): ReportParseResult {
  return parseGuarded('libtest JSON stream', text, readEvents);
}

function readEvents(text: string): TestCaseResult[] {
  const cases: TestCaseResult[] = [];
  let suite: Suite | undefined;
  let suites = 0;
  const lines = linesOf(text);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (!line.startsWith('{')) continue;
    const where = `line ${i + 1}`;
    const event = toRecord(line, where);
    const type = event.type;
    const kind = event.event;
    if (type === 'suite') {
      if (kind === 'started') {
        if (suite !== undefined) cases.push(...unfinished(suite));
        suites++;
        suite = { number: suites, started: new Map(), seen: new Set(), counts: { passed: 0, failed: 0, ignored: 0 } };
        if (typeof event.test_count === 'number') suite.testCount = event.test_count;
      } else if (kind === 'ok' || kind === 'failed') {
        if (suite === undefined) throw new ReportFormatError(`${where}: a suite ended that never started`);
        checkCounts(suite, event, where);
        suite = undefined;
      }
      continue;
    }
    if (type !== 'test') continue; // bench and newer event types
    if (suite === undefined) throw new ReportFormatError(`${where}: a test event outside a suite`);
    if (typeof event.name !== 'string' || event.name === '') throw new ReportFormatError(`${where}: a test event without a name`);
    const id = testId(event.name);
    if (kind === 'started') {
      if (suite.started.has(id) || suite.seen.has(id)) throw new ReportFormatError(`${where}: ${id} started twice`);
      suite.started.set(id, true);
      continue;
    }
    if (kind !== 'ok' && kind !== 'failed' && kind !== 'ignored') continue; // `timeout` is a warning, not an end
    if (suite.seen.has(id)) throw new ReportFormatError(`${where}: ${id} ended twice`);
    if (!suite.started.delete(id) && kind !== 'ignored') throw new ReportFormatError(`${where}: ${id} ended without having started`);
    suite.seen.add(id);
    const duration = typeof event.exec_time === 'number' ? event.exec_time * 1000 : undefined;
    if (kind === 'ok') {
      suite.counts.passed++;
      cases.push(caseOf(id, 'passed', undefined, duration));
    } else if (kind === 'failed') {
      suite.counts.failed++;
      const output = typeof event.stdout === 'string' ? event.stdout : typeof event.message === 'string' ? event.message : '';
      cases.push(caseOf(id, 'failed', firstLine(output) ?? 'failed', duration));
    } else {
      suite.counts.ignored++;
      cases.push(caseOf(id, 'skipped', typeof event.message === 'string' ? firstLine(event.message) : 'ignored'));
    }
  }
  if (suite !== undefined) cases.push(...unfinished(suite));
  if (suites === 0) throw new ReportFormatError('no libtest JSON suite in the output');
  return cases;
}

/** nextest: `binary-id$module::test` → `binary-id::module::test`. */
function testId(name: string): string {
  const dollar = name.indexOf('$');
  return dollar === -1 ? name : `${name.slice(0, dollar)}::${name.slice(dollar + 1)}`;
}

function unfinished(suite: Suite): TestCaseResult[] {
  const message = 'did not finish: the test binary stopped before its suite ended';
  return [...[...suite.started.keys()].map((id) => caseOf(id, 'failed', message)), caseOf(`[suite ${suite.number} did not finish]`, 'failed', message)];
}

function checkCounts(suite: Suite, event: Record<string, unknown>, where: string): void {
  if (suite.started.size > 0) throw new ReportFormatError(`${where}: the suite ended with ${suite.started.size} test(s) still running`);
  for (const key of ['passed', 'failed', 'ignored'] as const) {
    const claimed = event[key];
    if (typeof claimed === 'number' && claimed !== suite.counts[key]) {
      throw new ReportFormatError(
        `${where}: the suite reports ${claimed} ${key} but ${suite.counts[key]} test(s) ${key === 'passed' ? 'passed' : key === 'failed' ? 'failed' : 'were ignored'}`,
      );
    }
  }
  if (suite.testCount !== undefined && suite.testCount !== suite.seen.size) {
    throw new ReportFormatError(`${where}: the suite announced ${suite.testCount} test(s) but ${suite.seen.size} reported`);
  }
}

function toRecord(line: string, where: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new ReportFormatError(`${where}: not a JSON event`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ReportFormatError(`${where}: not a JSON object`);
  return raw as Record<string, unknown>;
}
