/**
 * Reads a TAP stream (versions 12, 13 and 14) into test case results: tape, node-tap, node's
 * `--test-reporter=tap`, Perl's Test::More run directly or through `prove -v`. Pure; the id forms
 * are documented in docs/tasks.md ("TAP").
 *
 * Ids:
 * - a stream with subtests (`# Subtest:` lines or indented test points: node --test, node-tap,
 *   Test::More subtests): every leaf test point is a case whose id is the descriptions from the
 *   outermost test down, joined by ` > ` (`math > adds`), the same ids node's JUnit reporter gives;
 *   a parent that failed while none of its children did is a failed case of its own;
 * - a flat stream where `# name` comment lines open tests (tape): each test is one case named by
 *   its comment, failed when any of its assertions failed;
 * - otherwise each test point is a case named by its description (`#N` when it has none).
 * `prove -v` prints `t/file.t ..` before each file's stream: ids then start with `t/file.t > `.
 *
 * A stream cut short never reads as a shorter passing one: with a plan `1..N` the numbers that
 * never reported are failed cases `[did not run] #n`; with no plan a failed `[no plan]` case is
 * added; `Bail out!` adds `[bail out]`; the test that was running when the stream ended (an open
 * subtest, tape's last named test) fails. What cannot be honest makes the report unusable:
 * a test number repeated or out of order, two plans, a plan that disagrees with the tests seen,
 * a test point after a closing plan.
 */
import type { TestCaseResult, TestStatus } from '../../core/types/index.js';
import { caseOf, firstLine, linesOf, parseGuarded, ReportFormatError, type ReportParseResult } from './report-common.js';

export const TAP_SEPARATOR = ' > ';
/** Beyond this many, numbers that did not run are one `[did not run] #a..#b` case rather than one each. */
const MAX_DID_NOT_RUN_CASES = 100;
/** No runner nests this deep; a stream that does is built to make ids and paths quadratic. */
const MAX_DEPTH = 64;

interface Group {
  name: string;
}

interface Point {
  number: number;
  ok: boolean;
  description: string;
  directive?: { kind: 'skip' | 'todo'; reason: string };
  message?: string;
  durationMs?: number;
  children: Point[];
  group?: Group;
  indent: number;
}

interface Plan {
  count: number;
  afterPoints: boolean;
}

interface Level {
  depth: number;
  name?: string;
  pendingSubtest?: string;
  points: Point[];
  plan?: Plan;
}

interface Segment {
  /** prove's file name, when the stream came through `prove -v`. */
  file?: string;
  levels: Level[];
  group?: Group;
  sawTap: boolean;
  hasSubtests: boolean;
  bail?: string;
}

const TEST_POINT = /^(not )?ok\b(.*)$/;
const PLAN = /^1\.\.(\d+)\s*(?:#.*)?$/;
const VERSION = /^TAP version \d+\s*$/i;
const PRAGMA = /^pragma [+-]/;
const SUBTEST = /^#\s*Subtest(?::\s*(.*))?$/;
/** `t/basic.t .. ` (prove, the dots padded to align file names). */
const PROVE_HEADER = /^(\S*[./]\S*) \.{2,} ?$/;

export function parseTap(text: string): ReportParseResult {
  return parseGuarded('TAP stream', text, readTap);
}

function readTap(text: string): TestCaseResult[] {
  const segments: Segment[] = [];
  let segment = newSegment();
  let yaml: { indent: number; point: Point } | undefined;
  const lines = linesOf(text);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const where = `line ${i + 1}`;
    if (yaml !== undefined) {
      if (line.trim() === '...' && indentOf(line) === yaml.indent) yaml = undefined;
      else readYamlLine(line, yaml.point);
      continue;
    }
    const indent = indentOf(line);
    const content = line.slice(indent).trimEnd();
    if (content.startsWith('Bail out!')) {
      segment.bail = content.slice('Bail out!'.length).trim();
      segment.sawTap = true;
      break;
    }
    const last = lastPoint(segment);
    if (content === '---' && last !== undefined && indent === last.indent + 2) {
      yaml = { indent, point: last };
      continue;
    }
    const header = indent === 0 ? PROVE_HEADER.exec(content) : null;
    if (header) {
      if (segment.sawTap || segment.file !== undefined) segments.push(segment);
      segment = newSegment(header[1]);
      continue;
    }
    if (indent % 4 !== 0) continue;
    const depth = indent / 4;
    if (depth > MAX_DEPTH && /^(?:not ok|ok|1\.\.|#\s*Subtest)/.test(content))
      throw new ReportFormatError(`${where}: subtests nested deeper than ${MAX_DEPTH} levels`);
    if (VERSION.test(content) || PRAGMA.test(content)) {
      segment.sawTap = true;
      continue;
    }
    const plan = PLAN.exec(content);
    const point = TEST_POINT.exec(content);
    const subtest = SUBTEST.exec(content);
    const isComment = content.startsWith('#');
    if (!plan && !point && !isComment) continue;
    // prove's verdict on a file (`ok`, `ok  5 ms`) after the file's closing plan.
    if (point && segment.file !== undefined && depth === 0 && closedByPlan(segment.levels[0]) && /^ok(?:\s+\d+ ms.*)?\s*$/.test(content)) continue;
    if (isComment && depth >= segment.levels.length) {
      // A comment never opens a level, except the old `    # Subtest: name` form, which names the level it opens.
      if (!subtest || depth !== segment.levels.length) continue;
      openLevel(segment);
      const opened = segment.levels[depth] as Level;
      const name = subtest[1]?.trim() ?? '';
      // New style: the parent's `# Subtest:` named this level and this line names the next one. Old style: this line names this level.
      if (opened.name === undefined) opened.name = name;
      else opened.pendingSubtest = name;
      continue;
    }
    if (plan || point) {
      segment.sawTap = true;
      while (segment.levels.length <= depth) openLevel(segment);
    }
    const level = segment.levels[depth];
    if (level === undefined) continue;
    if (subtest) {
      level.pendingSubtest = subtest[1]?.trim() ?? '';
      segment.hasSubtests = true;
    } else if (isComment) {
      const name = /^# (\S.*)$/.exec(content)?.[1]?.trim();
      if (depth === 0 && name !== undefined) segment.group = { name };
    } else if (plan) {
      if (segment.levels.length > depth + 1) throw new ReportFormatError(`${where}: a plan while a subtest is still open`);
      addPlan(level, Number(plan[1]), where);
    } else if (point) {
      addPoint(segment, level, point, indent, where);
    }
  }
  segments.push(segment);
  if (!segments.some((s) => s.sawTap || s.file !== undefined)) throw new ReportFormatError('no TAP in the output: no version line, plan or test point');
  return segments.filter((s) => s.sawTap || s.file !== undefined).flatMap(segmentCases);
}

function closedByPlan(level: Level | undefined): boolean {
  return level?.plan !== undefined && level.points.length >= level.plan.count;
}

function newSegment(file?: string): Segment {
  return { ...(file !== undefined ? { file } : {}), levels: [{ depth: 0, points: [] }], sawTap: false, hasSubtests: false };
}

function openLevel(segment: Segment): void {
  const parent = segment.levels[segment.levels.length - 1];
  const inherited = parent?.pendingSubtest;
  if (parent) delete parent.pendingSubtest;
  segment.levels.push({ depth: segment.levels.length, ...(inherited !== undefined ? { name: inherited } : {}), points: [] });
  segment.hasSubtests = true;
}

function addPlan(level: Level, count: number, where: string): void {
  if (level.plan !== undefined) throw new ReportFormatError(`${where}: a second plan (1..${count}) ${levelName(level)}`);
  const afterPoints = level.points.length > 0;
  if (afterPoints && count !== level.points.length) {
    throw new ReportFormatError(`${where}: the plan 1..${count} disagrees with the ${level.points.length} tests seen ${levelName(level)}`);
  }
  level.plan = { count, afterPoints };
}

function addPoint(segment: Segment, level: Level, match: RegExpExecArray, indent: number, where: string): void {
  const rest = match[2] ?? '';
  const numbered = /^\s+(\d+)(?=\s|$)/.exec(rest);
  const expected = level.points.length + 1;
  const number = numbered ? Number(numbered[1]) : expected;
  if (number !== expected) {
    const seen = number < expected ? 'repeated' : 'out of order';
    throw new ReportFormatError(`${where}: test number ${number} ${seen} (expected ${expected}) ${levelName(level)}`);
  }
  if (level.plan?.afterPoints) throw new ReportFormatError(`${where}: test ${number} after the closing plan ${levelName(level)}`);
  if (level.plan !== undefined && number > level.plan.count) {
    throw new ReportFormatError(`${where}: test ${number} beyond the plan 1..${level.plan.count} ${levelName(level)}`);
  }
  // Levels deeper than this point's are its subtests, which the point closes.
  let children: Point[] = [];
  if (segment.levels.length > level.depth + 2) throw new ReportFormatError(`${where}: a nested subtest ended without its own test point`);
  if (segment.levels.length === level.depth + 2) {
    const child = segment.levels.pop() as Level;
    if (child.plan !== undefined && !child.plan.afterPoints && child.plan.count !== child.points.length) {
      throw new ReportFormatError(`${where}: the subtest's plan 1..${child.plan.count} disagrees with its ${child.points.length} tests`);
    }
    children = child.points;
  }
  delete level.pendingSubtest;
  const { description, directive } = splitDirective(numbered ? rest.slice(numbered[0].length) : rest);
  const point: Point = { number, ok: match[1] === undefined, description, children, indent };
  if (directive) point.directive = directive;
  if (level.depth === 0 && segment.group) point.group = segment.group;
  level.points.push(point);
}

/** Description and directive: everything after the first unescaped `#` is a directive or a comment (node-tap's `# time=…`). */
function splitDirective(raw: string): { description: string; directive?: Point['directive'] } {
  let description = '';
  let i = 0;
  for (; i < raw.length; i++) {
    const ch = raw.charAt(i);
    if (ch === '\\' && i + 1 < raw.length) {
      description += raw.charAt(++i);
    } else if (ch === '#') break;
    else description += ch;
  }
  description = description
    .trim()
    .replace(/^-\s*/, '')
    .replace(/[\t\r\n]/g, ' ')
    .trim();
  const directive = /^#\s*(skip\S*|todo\b)\s*(.*)$/i.exec(raw.slice(i).trim());
  if (!directive) return { description };
  const kind = (directive[1] ?? '').toLowerCase().startsWith('skip') ? 'skip' : 'todo';
  return { description, directive: { kind, reason: (directive[2] ?? '').trim() } };
}

function readYamlLine(line: string, point: Point): void {
  const field = /^\s*(message|error|duration_ms):\s*(.*)$/.exec(line);
  if (!field) return;
  const value = (field[2] ?? '').trim().replace(/^(['"])(.*)\1$/, '$2');
  if (field[1] === 'duration_ms') {
    const ms = Number(value);
    if (Number.isFinite(ms)) point.durationMs = ms;
  } else if (point.message === undefined && value !== '' && value !== '|-' && value !== '|' && value !== '>-') {
    point.message = value;
  }
}

function segmentCases(segment: Segment): TestCaseResult[] {
  const top = segment.levels[0] as Level;
  const prefix = segment.file !== undefined ? [segment.file] : [];
  const cut = cutReason(segment, top);
  const cases = segment.hasSubtests ? subtestCases(top.points, prefix) : flatCases(top.points, prefix, cut !== undefined ? segment.group : undefined);
  // A subtest still open when the stream ended: the innermost one did not finish.
  const open = segment.levels.slice(1);
  if (open.length > 0) {
    const path = [...prefix];
    for (const level of open) {
      cases.push(...subtestCases(level.points, [...path, level.name || '[unnamed subtest]']));
      path.push(level.name || '[unnamed subtest]');
    }
    cases.push(caseOf(path.join(TAP_SEPARATOR), 'failed', 'did not finish: the stream ended inside it'));
  }
  if (cut !== undefined) cases.push(...cutCases(segment, top, prefix));
  return cases;
}

/** Why the stream stopped early; undefined when it ran to its plan. */
function cutReason(segment: Segment, top: Level): string | undefined {
  if (segment.bail !== undefined) return 'bail';
  if (top.plan === undefined) return 'no plan';
  if (top.points.length < top.plan.count || segment.levels.length > 1) return 'short';
  return undefined;
}

function cutCases(segment: Segment, top: Level, prefix: string[]): TestCaseResult[] {
  const id = (name: string): string => [...prefix, name].join(TAP_SEPARATOR);
  const ran = top.points.length;
  const out: TestCaseResult[] = [];
  if (segment.bail !== undefined) out.push(caseOf(id('[bail out]'), 'failed', `Bail out!${segment.bail ? ` ${segment.bail}` : ''}`));
  else if (top.plan === undefined) {
    out.push(
      caseOf(id('[no plan]'), 'failed', `the TAP stream ended without a plan ${ran === 0 ? 'before any test' : `after test ${ran}`}: the run was cut short`),
    );
  }
  if (top.plan !== undefined && ran < top.plan.count) {
    const message = `did not run: the stream ended ${ran === 0 ? 'before the first test' : `at test ${ran}`}`;
    const last = top.plan.count;
    const individually = Math.min(last, ran + MAX_DID_NOT_RUN_CASES);
    for (let n = ran + 1; n <= individually; n++) out.push(caseOf(id(`[did not run] #${n}`), 'failed', message));
    if (individually < last) out.push(caseOf(id(`[did not run] #${individually + 1}..#${last}`), 'failed', message));
  }
  return out;
}

function pointName(point: Point): string {
  return point.description === '' ? `#${point.number}` : point.description;
}

function pointStatus(point: Point): { status: TestStatus; message?: string } {
  if (point.directive?.kind === 'skip') return { status: 'skipped', message: point.directive.reason || 'skipped' };
  if (point.directive?.kind === 'todo')
    return point.ok ? { status: 'passed' } : { status: 'skipped', message: `todo${point.directive.reason ? `: ${point.directive.reason}` : ''}` };
  return point.ok ? { status: 'passed' } : { status: 'failed', message: firstLine(point.message) ?? (point.description || 'not ok') };
}

function subtestCases(points: readonly Point[], prefix: readonly string[]): TestCaseResult[] {
  const out: TestCaseResult[] = [];
  for (const point of points) {
    const path = [...prefix, pointName(point)];
    const { status, message } = pointStatus(point);
    if (point.children.length > 0) {
      const children = subtestCases(point.children, path);
      out.push(...children);
      // node drops a parent's own failure (a hook, an error outside its subtests) from its leaves: keep it.
      if (status === 'failed' && !children.some((c) => c.status === 'failed')) out.push(caseOf(path.join(TAP_SEPARATOR), status, message, point.durationMs));
    } else {
      out.push(caseOf(path.join(TAP_SEPARATOR), status, message, point.durationMs));
    }
  }
  return out;
}

/** tape: a `# name` comment opens a test and its points are its assertions. `unfinished` is the test running when the stream was cut. */
function flatCases(points: readonly Point[], prefix: readonly string[], unfinished: Group | undefined): TestCaseResult[] {
  const out: TestCaseResult[] = [];
  const byGroup = new Map<Group, TestCaseResult>();
  for (const point of points) {
    const { status, message } = pointStatus(point);
    if (point.group === undefined) {
      out.push(caseOf([...prefix, pointName(point)].join(TAP_SEPARATOR), status, message, point.durationMs));
      continue;
    }
    const existing = byGroup.get(point.group);
    if (existing === undefined) {
      const created = caseOf([...prefix, point.group.name].join(TAP_SEPARATOR), status, message);
      byGroup.set(point.group, created);
      out.push(created);
    } else if (status === 'failed' && existing.status !== 'failed') {
      existing.status = 'failed';
      if (message !== undefined) existing.message = message;
    } else if (status === 'passed' && existing.status === 'skipped') {
      existing.status = 'passed';
      delete existing.message;
    }
  }
  // Only a stream whose comments name tests (tape) has a running test to blame; Test::More's
  // closing `# Looks like you failed …` comments name none.
  if (unfinished !== undefined && byGroup.size > 0) {
    const message = 'did not finish: the stream ended inside this test';
    const existing = byGroup.get(unfinished);
    if (existing === undefined) out.push(caseOf([...prefix, unfinished.name].join(TAP_SEPARATOR), 'failed', message));
    else if (existing.status !== 'failed') {
      existing.status = 'failed';
      existing.message = message;
    }
  }
  return out;
}

function lastPoint(segment: Segment): Point | undefined {
  for (let d = segment.levels.length - 1; d >= 0; d--) {
    const points = segment.levels[d]?.points ?? [];
    if (points.length > 0) return points[points.length - 1];
  }
  return undefined;
}

function indentOf(line: string): number {
  return /^ */.exec(line)?.[0].length ?? 0;
}

function levelName(level: Level): string {
  return level.depth === 0 ? 'in the top-level stream' : `in subtest "${level.name ?? ''}"`;
}
