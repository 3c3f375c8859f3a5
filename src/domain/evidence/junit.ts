/**
 * Reads a JUnit XML report into test case results. Pure: takes the report text, never throws,
 * and answers with an `error` (one line) for anything it cannot read honestly.
 *
 * Shapes handled (fixtures in test/fixtures/junit): pytest `--junitxml`, `node --test
 * --test-reporter=junit` (cases directly under `<testsuites>`, `<testsuite>` per describe block,
 * a `failure` attribute on failed cases), vitest's junit reporter, jest-junit, go-junit-report v2,
 * and a bare `<testsuite>` root. Ids follow the rule in junit-id.ts.
 *
 * Status: a `<failure>` or `<error>` child, or node's `failure` attribute (present even when
 * empty), is `failed` (marked `errored` when it is an `<error>` alone); otherwise a `<skipped>`
 * child is `skipped`; otherwise `passed`. Retries that some runners record (`<flakyFailure>`,
 * `<rerunFailure>`) do not count as failures.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { TestCaseResult, TestStatus } from '../../core/types/index.js';
import { decodeXmlEntities } from './junit-entities.js';
import { junitTestId, normaliseName } from './junit-id.js';

/** Reports beyond this many characters are refused: parsing builds a tree several times larger. */
export const MAX_JUNIT_CHARS = 32 * 1024 * 1024;
/** Failure and skip messages keep their first non-empty line, cut to this many characters. */
export const MAX_MESSAGE_CHARS = 300;
const MAX_ERROR_CHARS = 200;

export interface JUnitParseResult {
  /** In document order. Empty whenever `error` is set. */
  cases: TestCaseResult[];
  /** One line saying why the report could not be read. */
  error?: string;
}

interface XmlElement {
  kind: 'element';
  tag: string;
  attrs: ReadonlyMap<string, string>;
  children: XmlNode[];
}

/** Text kept raw until read: most of it (stack traces, captured output) is never looked at. */
interface XmlText {
  kind: 'text';
  raw: string;
  cdata: boolean;
}

type XmlNode = XmlElement | XmlText;

class JUnitFormatError extends Error {}

const ATTRIBUTE_PREFIX = '@_';

export function parseJUnit(xml: string): JUnitParseResult {
  try {
    return { cases: readCases(xml) };
  } catch (error) {
    const reason = error instanceof JUnitFormatError ? error.message : `XML parser failed: ${error instanceof Error ? error.message : String(error)}`;
    return { cases: [], error: toOneLine(reason, MAX_ERROR_CHARS) };
  }
}

function readCases(xml: string): TestCaseResult[] {
  if (typeof xml !== 'string') throw new JUnitFormatError('JUnit report is not text');
  if (xml.length > MAX_JUNIT_CHARS) {
    throw new JUnitFormatError(`JUnit report has ${xml.length} characters, over the limit of ${MAX_JUNIT_CHARS}`);
  }
  const text = xml.replace(/^\uFEFF/, '').trimStart();
  if (text === '') throw new JUnitFormatError('JUnit report is empty');
  // No runner writes a DOCTYPE; refusing it outright means no entity declaration is ever
  // looked at, let alone expanded (billion laughs), whatever the parser's own limits are.
  if (startsWithDoctype(text)) {
    throw new JUnitFormatError('JUnit report declares a DOCTYPE, which is not accepted');
  }
  const validation = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (validation !== true) {
    const { line, msg } = validation.err;
    throw new JUnitFormatError(`not well-formed XML at line ${line}: ${msg}`);
  }
  const root = singleRoot(toNodes(newParser().parse(text)));
  const cases: TestCaseResult[] = [];
  if (root.tag === 'testsuite') collectCases(root, [root.attrs.get('name') ?? ''], cases);
  else collectCases(root, [], cases);
  return cases;
}

function newParser(): XMLParser {
  return new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: ATTRIBUTE_PREFIX,
    parseTagValue: false,
    parseAttributeValue: false,
    // Entities are decoded by junit-entities.ts; the parser never expands any.
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    cdataPropName: '#cdata',
    trimValues: false,
  });
}

/** True when the prolog (before the root element) contains `<!DOCTYPE`. */
function startsWithDoctype(text: string): boolean {
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end === -1) return false;
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end === -1) return false;
      i = end + 3;
    } else {
      return text.slice(i, i + 9).toUpperCase() === '<!DOCTYPE';
    }
  }
  return false;
}

function singleRoot(nodes: XmlNode[]): XmlElement {
  const roots = nodes.filter((n): n is XmlElement => n.kind === 'element');
  if (roots.length !== 1) {
    throw new JUnitFormatError(`JUnit report has ${roots.length} root elements, expected one`);
  }
  const root = roots[0] as XmlElement;
  if (root.tag !== 'testsuites' && root.tag !== 'testsuite') {
    throw new JUnitFormatError(`root element is <${root.tag}>, expected <testsuites> or <testsuite>`);
  }
  return root;
}

function collectCases(parent: XmlElement, suitePath: string[], out: TestCaseResult[]): void {
  for (const child of parent.children) {
    if (child.kind !== 'element') continue;
    if (child.tag === 'testsuite') {
      collectCases(child, [...suitePath, child.attrs.get('name') ?? ''], out);
    } else if (child.tag === 'testcase') {
      out.push(toCase(child, suitePath, out.length + 1));
    }
  }
}

function toCase(testcase: XmlElement, suitePath: string[], position: number): TestCaseResult {
  const name = testcase.attrs.get('name');
  if (name === undefined || normaliseName(name) === '') {
    const where = suitePath.length > 0 ? ` in suite "${suitePath.join(' > ')}"` : '';
    throw new JUnitFormatError(`testcase #${position}${where} has no name`);
  }
  const classname = testcase.attrs.get('classname');
  const result: TestCaseResult = {
    id: junitTestId({ name, suitePath, ...(classname !== undefined ? { classname } : {}) }),
    ...statusOf(testcase),
  };
  const durationMs = secondsToMs(testcase.attrs.get('time'));
  if (durationMs !== undefined) result.durationMs = durationMs;
  return result;
}

function statusOf(testcase: XmlElement): { status: TestStatus; errored?: true; message?: string } {
  const asserted = firstChild(testcase, 'failure');
  const failure = asserted ?? firstChild(testcase, 'error');
  const failureAttribute = testcase.attrs.get('failure');
  if (failure !== undefined || failureAttribute !== undefined) {
    const message = failure !== undefined ? resultMessage(failure) : firstLine(failureAttribute ?? '');
    // Still `failed` for grading; `crucible tests` shows it as an error.
    return failure !== undefined && asserted === undefined ? { errored: true, ...withMessage('failed', message) } : withMessage('failed', message);
  }
  const skipped = firstChild(testcase, 'skipped');
  if (skipped !== undefined) return withMessage('skipped', resultMessage(skipped));
  return { status: 'passed' };
}

function withMessage(status: TestStatus, message: string | undefined): { status: TestStatus; message?: string } {
  return message === undefined ? { status } : { status, message };
}

/** The `message` attribute when it says something, else the element's text. */
function resultMessage(element: XmlElement): string | undefined {
  return firstLine(element.attrs.get('message') ?? '') ?? firstLine(textOf(element));
}

function firstChild(element: XmlElement, tag: string): XmlElement | undefined {
  return element.children.find((c): c is XmlElement => c.kind === 'element' && c.tag === tag);
}

function textOf(element: XmlElement): string {
  let text = '';
  for (const child of element.children) {
    if (child.kind === 'text') text += child.cdata ? child.raw : decodeXmlEntities(child.raw);
  }
  return text;
}

function firstLine(text: string): string | undefined {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    if (line !== '') return truncate(line, MAX_MESSAGE_CHARS);
    start = end + 1;
  }
  return undefined;
}

function secondsToMs(time: string | undefined): number | undefined {
  if (time === undefined || time.trim() === '') return undefined;
  const seconds = Number(time);
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  // Round to microseconds so 0.000677 s reads 0.677, not 0.6769999999999999.
  return Math.round(seconds * 1_000_000) / 1000;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function toOneLine(text: string, max: number): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
}

// --- fast-xml-parser's preserveOrder output → typed nodes -------------------------------------

function toNodes(raw: unknown): XmlNode[] {
  if (!Array.isArray(raw)) return [];
  const nodes: XmlNode[] = [];
  for (const item of raw as unknown[]) {
    if (!isRecord(item)) continue;
    if ('#text' in item) {
      nodes.push({ kind: 'text', raw: String(item['#text']), cdata: false });
      continue;
    }
    if ('#cdata' in item) {
      nodes.push({ kind: 'text', raw: cdataText(item['#cdata']), cdata: true });
      continue;
    }
    const tag = Object.keys(item).find((key) => key !== ':@');
    if (tag === undefined) continue;
    nodes.push({ kind: 'element', tag, attrs: toAttributes(item[':@']), children: toNodes(item[tag]) });
  }
  return nodes;
}

function cdataText(raw: unknown): string {
  if (!Array.isArray(raw)) return '';
  return (raw as unknown[]).map((part) => (isRecord(part) && '#text' in part ? String(part['#text']) : '')).join('');
}

function toAttributes(raw: unknown): Map<string, string> {
  const attrs = new Map<string, string>();
  if (!isRecord(raw)) return attrs;
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith(ATTRIBUTE_PREFIX)) {
      attrs.set(key.slice(ATTRIBUTE_PREFIX.length), decodeXmlEntities(String(value)));
    }
  }
  return attrs;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
