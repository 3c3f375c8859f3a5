import { formatDefect } from '../../domain/tasks/index.js';
import type { AttemptResult } from '../../core/types/index.js';

/*
 * JUnit XML for CI test tabs: one <testsuite> per agent (per task set in a suite run, whose task
 * ids are `<set>/<task>`), one <testcase> per attempt (classname = agent, name = `task #trial`). A failed attempt carries <failure message="cause">,
 * a harness error <error message="harness_error">: CI shows the cause where it shows a test's
 * failure message.
 */

/** Characters XML 1.0 cannot carry at all, even escaped. */
// eslint-disable-next-line no-control-regex -- naming the allowed control characters is the point
const INVALID_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlEscape(text: string): string {
  return text.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Attribute values also keep their line breaks (attribute normalisation would turn them into spaces). */
export function xmlAttr(text: string): string {
  return xmlEscape(text).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);

export function junitCaseName(a: Pick<AttemptResult, 'taskId' | 'trial'>): string {
  return `${a.taskId} #${a.trial}`;
}

function details(a: AttemptResult): string {
  const lines = [a.message];
  const failing = [...(a.tests?.failToPass.failing ?? []), ...(a.tests?.passToPass.failing ?? [])];
  for (const f of failing.slice(0, 50)) lines.push(`test ${f.id}: ${f.reason}`);
  for (const c of a.checks.filter((c) => !c.passed)) lines.push(`check ${c.id} (${c.severity}): ${c.message}`);
  if (a.harnessError) lines.push(`harness error in ${a.harnessError.phase}: ${a.harnessError.message}`);
  if (a.harnessError?.detail) lines.push(a.harnessError.detail);
  for (const d of a.taskError?.defects ?? []) lines.push(`task error: ${formatDefect(d)}`);
  lines.push(`attempt ${a.attemptId}`);
  return lines.join('\n');
}

function testcase(a: AttemptResult): string {
  const open = `    <testcase classname="${xmlAttr(a.agent)}" name="${xmlAttr(junitCaseName(a))}" time="${seconds(a.timings.totalMs)}">`;
  const props = `      <properties><property name="attemptId" value="${xmlAttr(a.attemptId)}"/><property name="cause" value="${xmlAttr(a.cause)}"/></properties>`;
  if (a.verdict === 'PASS') return `${open}\n${props}\n    </testcase>`;
  const tag = a.verdict === 'ERROR' ? 'error' : 'failure';
  const body = `      <${tag} message="${xmlAttr(a.cause)}" type="${xmlAttr(a.cause)}">${xmlEscape(details(a))}</${tag}>`;
  return `${open}\n${props}\n${body}\n    </testcase>`;
}

export function renderJUnit(runId: string, attempts: readonly AttemptResult[]): string {
  // Plain task ids never contain `/` (the task-id rule); a suite's always do.
  const suiteRun = attempts.length > 0 && attempts.every((a) => a.taskId.includes('/'));
  const groupOf = (a: AttemptResult): string => (suiteRun ? a.taskId.slice(0, a.taskId.indexOf('/')) : a.agent);
  const groups = [...new Set(attempts.map(groupOf))];
  const total = (list: readonly AttemptResult[]) => ({
    tests: list.length,
    failures: list.filter((a) => a.verdict === 'FAIL').length,
    errors: list.filter((a) => a.verdict === 'ERROR').length,
    time: seconds(list.reduce((s, a) => s + a.timings.totalMs, 0)),
  });
  const all = total(attempts);
  const suites = groups.map((group) => {
    const list = attempts.filter((a) => groupOf(a) === group);
    const t = total(list);
    const timestamp = list[0]?.startedAt.replace(/Z$/, '') ?? '';
    return [
      `  <testsuite name="${xmlAttr(group)}" tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" skipped="0" time="${t.time}" timestamp="${xmlAttr(timestamp)}">`,
      ...list.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(`crucible ${runId}`)}" tests="${all.tests}" failures="${all.failures}" errors="${all.errors}" time="${all.time}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
