/** The files of one `crucible ci` evaluation: ci.json, report.md, results.sarif, verdict.junit.xml; and the GitHub step summary. */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKS } from '../../domain/checks/index.js';
import { findingLocations, sarifLevel, SARIF_SCHEMA_URI, SARIF_VERSION, xmlAttr, xmlEscape, type SarifLog } from '../report/index.js';
import { version } from '../../core/version.js';
import type { CiResult } from './result.js';

export const CI_FILES = { json: 'ci.json', markdown: 'report.md', sarif: 'results.sarif', junit: 'verdict.junit.xml' } as const;

export async function writeCiReports(result: CiResult): Promise<void> {
  await writeFile(join(result.reportDir, CI_FILES.json), `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(join(result.reportDir, CI_FILES.markdown), renderCiMarkdown(result));
  await writeFile(join(result.reportDir, CI_FILES.sarif), `${JSON.stringify(renderCiSarif(result), null, 2)}\n`);
  await writeFile(join(result.reportDir, CI_FILES.junit), renderCiJUnit(result));
}

/** A check that fails the change: failed at a severity the verdict counts (a failed warning or info check only reports). */
const failsVerdict = (c: CiResult['checks'][number]): boolean => !c.passed && (c.severity === 'error' || c.severity === 'critical');

/**
 * The verdict as JUnit, beside the project's own junit.xml: a CI test tab that reads every JUnit
 * file shows a FAIL as a failed `verdict` case, with each check a case of its own, instead of only
 * the project's tests (which may all pass on a change that tampers with them).
 */
export function renderCiJUnit(r: CiResult): string {
  const failing = r.checks.filter(failsVerdict);
  const failures = failing.length + (r.verdict === 'FAIL' ? 1 : 0);
  const verdictCase =
    r.verdict === 'PASS'
      ? `    <testcase classname="crucible.ci" name="verdict"/>`
      : `    <testcase classname="crucible.ci" name="verdict">\n      <failure message="${xmlAttr(`FAIL ${r.cause}`)}" type="${xmlAttr(r.cause)}">${xmlEscape(r.message)}</failure>\n    </testcase>`;
  const checkCase = (c: CiResult['checks'][number]): string => {
    const open = `    <testcase classname="crucible.ci.checks" name="${xmlAttr(c.id)}">`;
    if (failsVerdict(c))
      return `${open}\n      <failure message="${xmlAttr(c.message)}" type="${xmlAttr(c.severity)}">${xmlEscape(c.message)}</failure>\n    </testcase>`;
    return `${open}\n      <system-out>${xmlEscape(`${c.passed ? 'pass' : `failed at ${c.severity}`}: ${c.message}`)}</system-out>\n    </testcase>`;
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(`crucible ci ${r.id}`)}" tests="${r.checks.length + 1}" failures="${failures}" errors="0">`,
    `  <testsuite name="crucible ci" tests="${r.checks.length + 1}" failures="${failures}" errors="0" skipped="0" timestamp="${xmlAttr(r.createdAt.replace(/Z$/, ''))}">`,
    verdictCase,
    ...r.checks.map(checkCase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** GitHub shows the file `$GITHUB_STEP_SUMMARY` names under the job; several steps append to it. */
export async function appendStepSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  await appendFile(file, `${markdown.trimEnd()}\n\n`);
  return true;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function renderCiMarkdown(r: CiResult): string {
  const head = 'workingTree' in r.head ? 'the working tree' : `\`${r.head.ref}\` (${r.head.commit.slice(0, 12)})`;
  const lines = [
    `## Crucible ci: ${r.verdict === 'PASS' ? '✅ PASS' : r.verdict === 'ERROR' ? '⚠️ ERROR' : '❌ FAIL'} (${r.cause})`,
    '',
    `${head} against \`${r.base.ref}\` (${r.base.commit.slice(0, 12)}): ${cell(r.message)}`,
    '',
    `Diff: ${r.diff.filesChanged} file(s), +${r.diff.added} −${r.diff.deleted}. Tests: \`${cell(r.tests.command)}\`, ` +
      `fail-to-pass ${r.tests.failToPass.passed}/${r.tests.failToPass.total}, pass-to-pass ${r.tests.passToPass.passed}/${r.tests.passToPass.total}` +
      `${r.baselineTests ? ' (compared with a run at base)' : ''}. Config: ${r.config}; sandbox ${r.sandbox}.`,
    '',
    '| check | result | severity | detail |',
    '|---|---|---|---|',
    ...r.checks.map((c) => `| ${c.id} | ${c.passed ? 'pass' : '**FAIL**'} | ${c.severity} | ${cell(c.message)} |`),
    '',
    `Report: \`${r.reportDir}\` (id ${r.id})`,
    '',
  ];
  return lines.join('\n');
}

/** One result per failed check, located at the files its evidence names (repo-relative, for code scanning). */
export function renderCiSarif(r: CiResult): SarifLog {
  const rules = r.checks.map((c) => ({
    id: c.id,
    name: c.id
      .split('_')
      .map((w) => `${w[0]?.toUpperCase() ?? ''}${w.slice(1)}`)
      .join(''),
    shortDescription: { text: DESCRIPTIONS.get(c.id) ?? c.id },
    defaultConfiguration: { level: sarifLevel(c.severity) },
    properties: { 'security-severity': SECURITY_SEVERITY[c.severity], tags: ['crucible', 'policy'] },
  }));
  const results = r.checks.flatMap((c, index) => {
    if (c.passed) return [];
    const locations = findingLocations(c.evidence);
    return [
      {
        ruleId: c.id,
        ruleIndex: index,
        level: sarifLevel(c.severity),
        message: { text: `${c.message} (crucible ci ${r.id}; cause ${r.cause})` },
        ...(locations.length > 0
          ? {
              locations: locations.map((l) => ({
                physicalLocation: {
                  artifactLocation: { uri: encodeURI(l.path), uriBaseId: '%SRCROOT%' },
                  ...(l.line !== undefined ? { region: { startLine: l.line } } : {}),
                },
              })),
            }
          : {}),
        partialFingerprints: { crucibleFinding: `ci/${c.id}/${locations.map((l) => l.path).join(',')}` },
        properties: { severity: c.severity, verdict: r.verdict, cause: r.cause },
      },
    ];
  });
  return {
    $schema: SARIF_SCHEMA_URI,
    version: SARIF_VERSION,
    runs: [
      {
        tool: { driver: { name: 'Crucible', version: version(), rules } },
        automationDetails: { id: `crucible/ci/${r.id}` },
        originalUriBaseIds: { '%SRCROOT%': { description: { text: 'The root of the checkout crucible ci evaluated.' } } },
        results,
        properties: { ciId: r.id },
      },
    ],
  };
}

const DESCRIPTIONS = new Map<string, string>(Object.values(CHECKS).map((c) => [c.id, c.description]));
const SECURITY_SEVERITY = { info: '2.0', warning: '5.0', error: '7.5', critical: '9.5' } as const;
