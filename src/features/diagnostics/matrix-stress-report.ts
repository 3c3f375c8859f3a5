import type { MatrixStressReport } from './matrix-stress.js';

/** The report for people; the figures (seconds, throughput, memory) vary between runs, the checks must not. */
export function matrixStressMarkdown(r: MatrixStressReport): string {
  const failed = r.checks.filter((c) => !c.passed);
  const lines = [
    `# Matrix stress — ${r.attempts} attempts, concurrency ${r.concurrency}`,
    '',
    failed.length === 0 ? '**Every integrity check passed.**' : `**${failed.length} integrity check(s) failed.**`,
    '',
    `${r.tasks} synthetic tasks × ${r.agents.length} agents (${r.agents.join(', ')}) × ${r.trials} trials, run through the real engine`,
    'by a sleep-and-arithmetic attempt runner; once to the end and once with `--fail-fast`.',
    ...(r.fault ? ['', `Deliberate fault injected: \`${r.fault}\` (a test of the checks themselves).`] : []),
    '',
    '| check | run | result | detail |',
    '|---|---|---|---|',
    ...r.checks.map((c) => `| ${c.id} | ${c.run} | ${c.passed ? 'pass' : '**FAIL**'} | ${c.detail.replace(/\|/g, '\\|')} |`),
    '',
    '| run | ended | planned | submitted | skipped | executed | checkpoint rows | history rows | finished out of order | seconds | attempts/s |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.runs.map(
      (x) =>
        `| ${x.run} | ${x.ended} | ${x.planned} | ${x.submitted} | ${x.skipped} | ${x.executed} | ${x.checkpointRows} | ${x.historyRows} | ${x.finishedOutOfOrder} | ${x.seconds} | ${x.attemptsPerSecond} |`,
    ),
    '',
    `Peak memory: ${r.memory.sampledPeakRssMb} MB RSS sampled every ${r.memory.sampleMs} ms; the process's maximum RSS was ${r.memory.maxRssMb} MB. Node ${r.node}.`,
  ];
  return `${lines.join('\n')}\n`;
}
