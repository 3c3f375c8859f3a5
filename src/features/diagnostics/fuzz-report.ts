import type { FuzzReport, VariantResult } from './fuzz.js';

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function judgementsText(v: Pick<VariantResult, 'judgements'>): string {
  return v.judgements.map((j) => `${j.check}: expected ${j.expected}, got ${j.actual}`).join('; ');
}

/** The report for people: the same data as report.json, deterministic too (no time, no paths). */
export function fuzzMarkdown(report: FuzzReport): string {
  const lines = [
    `# Policy fuzzing — seed ${report.seed}, ${report.count} variants`,
    '',
    report.verdict === 'agree'
      ? `**Every judged check agreed with its variant's expected outcome** (${report.tricks} tricks over ${report.dimensions.length} dimensions).`
      : `**${report.disagreements.length} variant(s) disagree** with their expected outcome: a check missed a violation it is meant to catch, or flagged a legitimate change.`,
    '',
    `Corpus sha256 \`${report.corpusHash}\` (same seed and count, same corpus). Reproduce: \`crucible diagnostics fuzz --seed ${report.seed} --count ${report.count}\`.`,
    '',
    '| dimension | variants | hostile | detected | benign | false alarms | known limit | by design | disagreements |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...report.dimensions.map(
      (d) =>
        `| ${d.dimension} | ${d.variants} | ${d.hostile} | ${d.detected} | ${d.benign} | ${d.falseAlarms} | ${d.knownLimit} | ${d.byDesign} | ${d.disagreements} |`,
    ),
    '',
    '## Disagreements',
    '',
    ...(report.disagreements.length === 0
      ? ['None.']
      : report.disagreements.map(
          (v) =>
            `- \`${v.id}\` ${v.dimension}/${v.trick} (${v.class}): ${cell(v.summary)} — ${judgementsText(v)}${v.judgements.map((j) => (j.message ? ` — “${cell(j.message)}”` : '')).join('')}`,
        )),
    '',
    '## Known limits and by-design outcomes',
    '',
    'Variants whose expected outcome is not the ideal one: misses the checks are not designed to prevent (known limit), lookalikes that are another thing on Linux (by design), and one known over-report. Listed so that nobody reads them as coverage.',
    '',
    '| dimension | trick | class | variants | why |',
    '|---|---|---|---:|---|',
    ...report.knownLimits.map((k) => `| ${k.dimension} | ${k.trick} | ${k.class} | ${k.variants} | ${cell(k.note)} |`),
    '',
    '## Variants',
    '',
    '| id | dimension | trick | class | variant | checks | agrees |',
    '|---|---|---|---|---|---|---|',
    ...report.variants.map(
      (v) => `| ${v.id} | ${v.dimension} | ${v.trick} | ${v.class} | ${cell(v.summary)} | ${judgementsText(v)} | ${v.agrees ? 'yes' : '**no**'} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
