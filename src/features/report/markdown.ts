import { formatStrengthSummary, type StrengthSummary } from '../strength/index.js';
import { formatDefect } from '../../domain/tasks/index.js';
import { gatewayUsageText, usageAnomalyText } from '../../core/format/index.js';
import {
  attemptFactsOf,
  type AgentStats,
  type AttemptResult,
  type Cause,
  type CheckResult,
  type RunStats,
  type TestCount,
  type TestGroupOutcome,
  type TestRunEvidence,
} from '../../core/types/index.js';
import { agentInfoText, detectionRange, duration, elapsed, interval, meaningfulScore, overfittingCell, pairedSentence, pct, usd, when } from './format.js';
import type { AgentFailurePatterns, StrengthResemblance } from '../../core/types/index.js';
import type { HeldOutCard, RunView } from './view.js';
import type { GuardAgentCounts } from '../../domain/guard/index.js';

export interface MarkdownOptions {
  /** Include each passing attempt's checks (folded); false for the terser GitHub step summary. */
  passingDetails?: boolean;
  /** Attempts given a section of their own; the rest are counted. Failing attempts come first. */
  maxAttemptSections?: number;
  /** Relative links to sibling reports (report.html, results.sarif). */
  links?: boolean;
}

const ICON: Record<AttemptResult['verdict'], string> = { PASS: '✅', FAIL: '❌', ERROR: '⚠️' };
const EVIDENCE_CHARS = 600;

/** Escapes text for a table cell or a line of prose. */
export function mdText(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/([\\`*_[\]<>|])/g, '\\$1');
}

/** A code span that survives backticks inside the text. */
export function mdCode(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function renderMarkdown(view: RunView, attempts: readonly AttemptResult[], opts: MarkdownOptions = {}): string {
  const out: string[] = [];
  const { run, stats } = view;
  const { PASS, FAIL, ERROR } = run.counts;
  out.push(`# Crucible run \`${run.runId}\``);
  out.push(
    `**${PASS} of ${run.executed} attempts passed** · ${FAIL} failed · ${ERROR} errored · task set ${mdCode(run.taskSet)} · ${when(run.createdAt)} · ${duration(elapsed(run.createdAt, run.finishedAt))}` +
      (run.adaptiveStop
        ? `\n\n> **Adaptive run:** ${run.adaptiveStop
            .replace(/^adaptive: /, '')
            .split('\n  ')
            .map(mdText)
            .join('<br>')}`
        : run.stoppedEarly
          ? `\n\n> **Stopped early:** ${run.executed} of ${run.planned} planned attempts ran.`
          : '') +
      (run.runCap ? `\n\n> **Run cap:** ${mdText(run.runCap)}` : ''),
  );
  // Only the reports this run actually wrote, never a dead link.
  const others = view.reports.filter((name) => !name.endsWith('.md'));
  if (opts.links && others.length > 0) out.push(`Reports: ${others.map((name) => `[${name}](${name})`).join(' · ')}`);
  if (stats) out.push(verdictSection(stats, view.strength));
  if (stats?.byTaskSet && stats.byTaskSet.length > 0) out.push(taskSetSection(stats));
  if (stats) out.push(heatmapSection(stats), causesSection(stats));
  const infos = Object.entries(run.agentInfo ?? {});
  if (infos.length > 0)
    out.push(
      `## External agents\n\n${table(
        ['agent', 'version · profile · model', 'package'],
        infos.map(([agent, info]) => [`**${mdText(agent)}**`, mdText(agentInfoText(info)), info.package ? mdCode(info.package) : '–']),
      )}`,
    );
  if (view.failurePatterns && view.failurePatterns.length > 0) out.push(failurePatternsSection(view.failurePatterns, detailedAttempts(attempts, opts)));
  if (view.resemblances && view.resemblances.length > 0) out.push(resemblanceSection(view.resemblances));
  if (view.heldOut.length > 0) out.push(heldOutSection(view.heldOut));
  if (view.guard && view.guard.length > 0) out.push(guardSection(view.guard));
  if (stats && stats.notes.length > 0) out.push(`## Notes\n\n${stats.notes.map((n) => `- ${mdText(n)}`).join('\n')}`);
  out.push(attemptsSection(attempts, opts));
  return `${out.join('\n\n')}\n`;
}

/** PASSes whose diff adds the very line a surviving mutant of their task has: a wrong fix the tests accept may be among them. */
function resemblanceSection(found: readonly StrengthResemblance[]): string {
  const rows = found.map((r) => [
    mdCode(r.attemptId),
    mdText(r.agent),
    mdText(r.taskId),
    r.mutants.map((m) => `${mdText(`${m.file}:${m.line} ${m.operator}`)} ${mdCode(m.after.trim())}`).join('<br>'),
  ]);
  return `## Passes that resemble a surviving mutant\n\nThese attempts PASSED their task with a diff that adds the line one of its surviving mutants has (a near-miss wrong fix the task's tests accept, \`crucible validate --strength\`): read the diff before trusting the pass.\n\n${table(
    ['attempt', 'agent', 'task', 'surviving mutant line it adds'],
    rows,
  )}`;
}

/** `--guard` runs: what the online guard saw per agent; each attempt's incident.json has the details. */
function guardSection(counts: readonly GuardAgentCounts[]): string {
  const rows = counts.map((c) => [
    `**${mdText(c.agent)}**`,
    c.mode,
    `${c.incidents} of ${c.attempts}`,
    String(c.findings),
    String(c.stopped),
    String(c.blocked),
    String(c.auditOnly),
    detectionRange(c),
  ]);
  return `## Online guard\n\nFindings while the agents ran (\`--guard\`); the post-hoc checks judged every attempt as usual. Details: \`incident.json\` in each attempt directory.\n\n${table(
    ['agent', 'mode', 'attempts with incidents', 'findings', 'stopped', 'blocked commands', 'audit-only', 'time to detection'],
    rows,
  )}`;
}

function passK(a: AgentStats, kind: 'passAtK' | 'passHatK'): string {
  return a.passK
    .filter((p) => p.k > 1 || kind === 'passHatK')
    .map((p) => (p.estimable ? `k=${p.k}: ${pct(p[kind].value)}` : `k=${p.k}: n/a`))
    .join(', ');
}

/** Provider errors are counted among the harness errors above; this says which were the provider's, per agent and provider. */
function providerErrorsNote(stats: RunStats): string | undefined {
  const hit = stats.agents.filter((a) => (a.providerErrors?.count ?? 0) > 0);
  if (hit.length === 0) return undefined;
  const lines = hit.map((a) => {
    const by = Object.entries(a.providerErrors?.byProvider ?? {}).map(([p, n]) => `${mdText(p)} ${n}`);
    return `- **${mdText(a.agent)}**: ${a.providerErrors?.count} of ${a.attempts} attempts (${by.join(', ')})`;
  });
  return `**Provider errors** (the model provider failed the agent; unscored, retried by \`crucible resume --retry-errors\`):\n\n${lines.join('\n')}`;
}

function verdictSection(stats: RunStats, strength: StrengthSummary | undefined): string {
  const overfitting = stats.agents.some((a) => a.overfitting !== undefined);
  const rows = stats.agents.map((a) => [
    `**${mdText(a.agent)}**`,
    a.passRate ? `${pct(a.passRate.rate)} ${interval(a.passRate.low, a.passRate.high)}` : 'no scored attempts',
    `${a.passes}/${a.scored}`,
    String(a.scoredTasks),
    a.harnessErrors.count > 0 ? `${a.harnessErrors.count} of ${a.harnessErrors.attempts}` : '0',
    passK(a, 'passHatK') || '–',
    usd(a.costUsd.stats?.mean),
    duration(a.latency.totalMs.stats?.median),
    ...(overfitting ? [overfittingCell(a)] : []),
  ]);
  const header = [
    'agent',
    'pass rate',
    'passed / scored',
    'tasks',
    'harness errors',
    'pass^k',
    'mean cost',
    'median time',
    ...(overfitting ? ['overfitting'] : []),
  ];
  const parts = [
    `## Verdict\n\nPass rates over scored attempts (harness errors excluded) with ${Math.round(stats.confidence * 100)}% intervals.` +
      (overfitting ? ' Overfitting: passes that failed held-out tests their task keeps informational (`held_out.required: false`).' : '') +
      (strength
        ? `\n\n**Task strength:** ${mdText(formatStrengthSummary(strength))}. The share of near-miss wrong fixes (mutants of each oracle) the tasks' tests fail; a pass rate is no surer than that (see \`crucible validate --strength\`).`
        : ''),
    table(header, rows),
  ];
  const provider = providerErrorsNote(stats);
  if (provider) parts.push(provider);
  if (stats.comparisons.length > 0) {
    parts.push(stats.comparisons.map((c) => `- ${mdText(pairedSentence(c))}`).join('\n'));
  }
  return parts.join('\n\n');
}

/** A suite run: each agent's pass rate per task set, clustered by task like the verdict table. */
function taskSetSection(stats: RunStats): string {
  const rows = (stats.byTaskSet ?? []).flatMap((s) =>
    s.agents.map((a) => [
      mdText(s.taskSet),
      mdText(a.agent),
      a.passRate ? `${pct(a.passRate.rate)} ${interval(a.passRate.low, a.passRate.high)}` : 'no scored attempts',
      `${a.passes}/${a.scored}`,
      String(a.tasks),
      a.harnessErrors.count > 0 ? `${a.harnessErrors.count} of ${a.harnessErrors.attempts}` : '0',
    ]),
  );
  return `## By task set\n\n${table(['task set', 'agent', 'pass rate', 'passed / scored', 'tasks', 'harness errors'], rows)}`;
}

function heatmapSection(stats: RunStats): string {
  const agents = stats.agents.map((a) => a.agent);
  const tasks = [...new Set(stats.cells.map((c) => c.taskId))];
  const cell = (taskId: string, agent: string): string => {
    const c = stats.cells.find((x) => x.taskId === taskId && x.agent === agent);
    if (!c) return '';
    if (c.n === 0) return `⚠️ ${c.harnessErrors} error${c.harnessErrors === 1 ? '' : 's'}`;
    const icon = c.passes === c.n ? '✅' : c.passes === 0 ? '❌' : '🟡';
    return `${icon} ${c.passes}/${c.n}${c.harnessErrors > 0 ? ` (+${c.harnessErrors} err)` : ''}`;
  };
  return `## Tasks × agents\n\n${table(
    ['task', ...agents.map(mdText)],
    tasks.map((t) => [mdCode(t), ...agents.map((a) => cell(t, a))]),
  )}`;
}

function causesSection(stats: RunStats): string {
  const causes = (Object.keys(stats.agents[0]?.causes ?? {}) as Cause[]).filter((c) => stats.agents.some((a) => a.causes[c] > 0));
  if (causes.length === 0) return '';
  const rows = causes.map((c) => [mdCode(c), ...stats.agents.map((a) => String(a.causes[c]))]);
  return `## Causes\n\n${table(['cause', ...stats.agents.map((a) => mdText(a.agent))], rows)}`;
}

function heldOutSection(cards: readonly HeldOutCard[]): string {
  const rows = cards.map((c) => [mdText(c.agent), `${c.heldOutPassed}/${c.withHeldOut}`, String(c.passedPublicFailedHeldOut)]);
  return `## Held-out tests\n\nTests the agent never saw, run after it stopped.\n\n${table(['agent', 'passed all held-out', 'passed public tests, failed held-out'], rows)}`;
}

/** What the failed attempts did, per agent; an attempt id links to its section when it has one. */
function failurePatternsSection(patterns: readonly AgentFailurePatterns[], detailed: readonly AttemptResult[]): string {
  const linked = new Set(detailed.map((a) => a.attemptId));
  const ref = (id: string): string => (linked.has(id) ? `[${mdCode(id)}](#${attemptAnchor(id)})` : mdCode(id));
  const rows = patterns.flatMap((a) =>
    a.patterns.map((p) => [
      mdText(a.agent),
      mdText(p.label),
      `${p.count}/${p.share.n}`,
      `${Math.round(p.share.rate * 100)}% [${Math.round(p.share.low * 100)}–${Math.round(p.share.high * 100)}%]`,
      p.attemptIds.map(ref).join(' '),
    ]),
  );
  const unrecorded = patterns.filter((a) => (a.unrecorded ?? 0) > 0).map((a) => `${mdText(a.agent)} ${a.unrecorded} of ${a.failed}`);
  const note =
    unrecorded.length > 0
      ? `\n\nWithout a trajectory (a reference agent, or a patch graded from elsewhere), so read for their diff, commands and stop only: ${unrecorded.join(', ')}.`
      : '';
  return `## Failure patterns

What the failed attempts did, read from their trajectories, command logs and diffs; shares of each agent's failed attempts a pattern could be read on, with Wilson 95% intervals. Each rule: \`docs/failure-patterns.md\`.\n\n${table(
    ['agent', 'pattern', 'failed attempts', 'share', 'attempts'],
    rows,
  )}${note}`;
}

const attemptAnchor = (id: string): string => `attempt-${id.replace(/[^A-Za-z0-9_-]/g, '-')}`;

function detailedAttempts(attempts: readonly AttemptResult[], opts: MarkdownOptions): AttemptResult[] {
  const max = opts.maxAttemptSections ?? 500;
  const ordered = [...attempts].sort((x, y) => order(x) - order(y) || x.index - y.index);
  return ordered.filter((a) => a.verdict !== 'PASS' || opts.passingDetails !== false).slice(0, max);
}

function attemptsSection(attempts: readonly AttemptResult[], opts: MarkdownOptions): string {
  const max = opts.maxAttemptSections ?? 500;
  const ordered = [...attempts].sort((x, y) => order(x) - order(y) || x.index - y.index);
  const detailed = detailedAttempts(attempts, opts);
  const shown = new Set(detailed.map((a) => a.attemptId));
  const out = ['## Attempts'];
  out.push(
    table(['', 'task', 'agent', 'trial', 'cause', 'F2P', 'P2P', 'held-out', 'checks failed', 'time'], ordered.slice(0, Math.max(max, 1000)).map(reportRow)),
  );
  if (attempts.length > Math.max(max, 1000)) out.push(`…and ${attempts.length - Math.max(max, 1000)} more attempts (see report.html).`);
  for (const a of detailed) out.push(attemptDetail(a));
  const left = attempts.length - shown.size;
  if (left > 0 && opts.passingDetails !== false) out.push(`${left} more attempt(s) without a section of their own (see report.html).`);
  return out.join('\n\n');
}

function order(a: AttemptResult): number {
  return a.verdict === 'FAIL' ? 0 : a.verdict === 'ERROR' ? 1 : 2;
}

/** One attempt's row of the attempts table, from its record's facts (the list item's numbers). */
function reportRow(a: AttemptResult): string[] {
  const facts = attemptFactsOf(a);
  return [
    ICON[a.verdict],
    mdCode(a.taskId),
    mdText(a.agent),
    String(a.trial),
    mdCode(a.cause),
    testCountText(facts.failToPass),
    testCountText(facts.passToPass),
    testCountText(facts.heldOut),
    String(facts.failedCheckCount),
    duration(a.timings.totalMs),
  ];
}

function testCountText(g: TestCount | null): string {
  return g ? `${g.passed}/${g.total}` : '–';
}

function attemptDetail(a: AttemptResult): string {
  const lines: string[] = [];
  lines.push(`<a id="${attemptAnchor(a.attemptId)}"></a>\n\n### ${ICON[a.verdict]} ${mdText(a.taskId)} · ${mdText(a.agent)} #${a.trial}: ${mdCode(a.cause)}`);
  lines.push(
    `**Cause:** ${mdCode(a.cause)}: ${mdText(a.message)}${meaningfulScore(a) !== undefined ? ` · score ${meaningfulScore(a)}` : ''} · ${duration(a.timings.totalMs)} · attempt ${mdCode(a.attemptId)}`,
  );
  if (a.agentInfo) lines.push(`**Agent:** ${mdText(a.agent)} · ${mdText(agentInfoText(a.agentInfo))}`);
  if (a.harnessError) lines.push(`**Harness error** in ${a.harnessError.phase}: ${mdText(a.harnessError.message)}`);
  if (a.harnessError?.detail) lines.push(fenced(a.harnessError.detail));
  if (a.agentResult?.usage?.anomalies) lines.push(`**Usage:** ${mdText(usageAnomalyText(a.agentResult.usage.anomalies))}`);
  const gateway = a.agentResult?.usage && gatewayUsageText(a.agentResult.usage);
  if (gateway) lines.push(`**Gateway:** ${mdText(gateway)}`);
  for (const d of a.taskError?.defects ?? []) lines.push(`**Task error:** ${mdText(formatDefect(d))}`);
  const evidence = testLines(a);
  if (evidence.length > 0) lines.push(evidence.join('\n'));
  lines.push(checksBlock(a.checks, a.verdict === 'PASS'));
  return lines.join('\n\n');
}

function testLines(a: AttemptResult): string[] {
  const out: string[] = [];
  const group = (label: string, g: TestGroupOutcome): void => {
    out.push(`- ${label} ${g.passed}/${g.total}${g.failing.length > 0 ? ':' : ''}`);
    for (const f of g.failing.slice(0, 20)) out.push(`  - ${mdCode(f.id)} (${f.reason})`);
    if (g.failing.length > 20) out.push(`  - …and ${g.failing.length - 20} more`);
  };
  const run = (prefix: string, t: TestRunEvidence): void => {
    if (t.invalidReason) out.push(`- ${prefix}test run invalid: ${mdText(t.invalidReason)}`);
    if (t.reward !== undefined) out.push(`- ${prefix}reward ${t.reward}${t.reward === 1 ? '' : ' (PASS needs 1)'}`);
    group(`${prefix}fail-to-pass`, t.failToPass);
    group(`${prefix}pass-to-pass`, t.passToPass);
  };
  if (a.tests) run('', a.tests);
  if (a.heldOut) run('held-out ', a.heldOut);
  if (a.diff) out.push(`- diff: ${a.diff.filesChanged} file(s), +${a.diff.added} −${a.diff.deleted}`);
  return out;
}

function checksBlock(checks: readonly CheckResult[], fold: boolean): string {
  if (checks.length === 0) return '_No policy checks recorded._';
  const rows = checks.map((c) => [mdCode(c.id), c.severity, c.passed ? 'pass' : '**fail**', mdText(c.message)]);
  const failing = checks.filter((c) => !c.passed);
  const evidence = failing.map((c) => `- ${mdCode(c.id)} evidence: ${mdCode(evidenceText(c.evidence))}`);
  const body = [table(['check', 'severity', 'result', 'message'], rows), ...(evidence.length > 0 ? [evidence.join('\n')] : [])].join('\n\n');
  if (!fold) return body;
  return `<details><summary>${checks.length} checks, ${failing.length} failed</summary>\n\n${body}\n\n</details>`;
}

function evidenceText(evidence: Record<string, unknown>): string {
  const text = JSON.stringify(evidence);
  return text.length > EVIDENCE_CHARS ? `${text.slice(0, EVIDENCE_CHARS)}…` : text;
}

/** A code block whose fence is longer than any run of backticks in the text, so nothing in it can close it. */
function fenced(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}
