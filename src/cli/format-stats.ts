import { relative } from 'node:path';
import pc from 'picocolors';
import type { AgentStats, AgentComparison, Measured, PassKEstimate, RateEstimate, RepoProfile, RunStats, TaskSetBreakdown } from '../core/types/index.js';
import { count, formatDuration, pct, table, usd } from './format.js';

/**
 * The statistics of a run as a person reads them in a terminal: per-agent pass rates with n, tasks
 * and a 95% interval, pass@k, effort, causes, the paired verdict between agents, and the repo
 * profile when there is more than one repo. Agents are listed in name order, never ranked: only
 * the paired comparison below the table says which is better.
 */
/** `cwd`: where the user runs from, to show legacy absolute repo keys relative to it. */
export function formatStats(stats: RunStats, cwd?: string, compareHint?: string): string {
  if (stats.attempts === 0) return pc.dim('no finished attempts: no statistics');
  const conf = `${Math.round(stats.confidence * 100)}%`;
  const parts: string[] = [];
  const floored = stats.agents.some((a) => a.passRate?.floor === 'wilson');
  const kLabels = stats.ks.map((k) => `pass@${k}`);
  parts.push(
    table(
      ['agent', 'pass rate', `${conf} interval`, 'n', 'tasks', ...kLabels, 'errors', 'causes'],
      stats.agents.map((a) => [
        a.agent,
        a.passRate ? pct(a.passRate.rate, 1) : 'n/a',
        a.passRate ? interval(a.passRate) : '-',
        String(a.scored),
        String(a.scoredTasks),
        ...stats.ks.map((k) => passK(a.passK.find((p) => p.k === k))),
        a.harnessErrors.count === 0 ? '0' : pc.yellow(`${a.harnessErrors.count} of ${a.attempts}`),
        causes(a),
      ]),
    ),
  );
  if (floored) {
    parts.push(
      pc.dim(
        `* every task was all-pass or all-fail, where the task bootstrap has zero width: the interval shown is the Wilson interval on the pooled attempts`,
      ),
    );
  }
  const provider = providerErrorsLine(stats.agents);
  if (provider) parts.push(provider);
  const effort = effortTable(stats.agents);
  if (effort) parts.push(effort);
  parts.push(formatComparisons(stats.comparisons, stats.agents.length, compareHint));
  if (stats.byTaskSet && stats.byTaskSet.length > 0) parts.push(formatTaskSets(stats.byTaskSet, conf));
  if (stats.repos.profiles.length > 1) parts.push(formatRepos(stats.repos.profiles, conf, cwd));
  for (const note of stats.notes) parts.push(`${pc.yellow('note')} ${note}`);
  return parts.join('\n\n');
}

/** Provider errors apart from the other errors, per agent and provider: they say where to look (the provider, not the harness). */
function providerErrorsLine(agents: readonly AgentStats[]): string | undefined {
  const hit = agents.filter((a) => (a.providerErrors?.count ?? 0) > 0);
  if (hit.length === 0) return undefined;
  const per = hit.map((a) => {
    const by = Object.entries(a.providerErrors?.byProvider ?? {}).map(([p, n]) => `${p} ${n}`);
    return `${a.agent} ${a.providerErrors?.count} of ${a.attempts} (${by.join(', ')})`;
  });
  return `${pc.yellow('provider errors')} (unscored, retried by resume --retry-errors): ${per.join('; ')}`;
}

function interval(r: RateEstimate): string {
  return `[${pct(r.low, 1)}, ${pct(r.high, 1)}]${r.floor ? '*' : ''}`;
}

function passK(p: PassKEstimate | undefined): string {
  if (p === undefined || !p.estimable) return 'n/a';
  return pct(p.passAtK.value, 1);
}

function causes(a: AgentStats): string {
  const nonzero = Object.entries(a.causes).filter(([, n]) => n > 0);
  return nonzero.map(([cause, n]) => `${cause} ${n}`).join(', ') || '-';
}

/** Latency always; tokens, cost, turns and tool calls only when some attempt reported them. */
function effortTable(agents: readonly AgentStats[]): string | undefined {
  const columns: Array<{ header: string; cell: (a: AgentStats) => string; shown: boolean }> = [
    { header: 'latency mean / median / p95', cell: (a) => spread(a.latency.totalMs, formatDuration), shown: true },
    { header: 'tokens mean / median / p95', cell: (a) => spread(a.tokens.total, count), shown: agents.some((a) => a.tokens.total.stats) },
    { header: 'cost mean / total', cell: (a) => costCell(a.costUsd), shown: agents.some((a) => a.costUsd.stats) },
    { header: 'turns mean', cell: (a) => mean(a.turns), shown: agents.some((a) => a.turns.stats) },
    { header: 'tool calls mean', cell: (a) => mean(a.toolCalls), shown: agents.some((a) => a.toolCalls.stats) },
  ];
  const shown = columns.filter((c) => c.shown);
  if (agents.every((a) => a.scored === 0)) return undefined;
  return table(
    ['agent', ...shown.map((c) => c.header)],
    agents.map((a) => [a.agent, ...shown.map((c) => c.cell(a))]),
  );
}

function spread(m: Measured, fmt: (v: number) => string): string {
  if (!m.stats) return '-';
  const text = `${fmt(m.stats.mean)} / ${fmt(m.stats.median)} / ${fmt(m.stats.p95)}`;
  return m.missing > 0 ? `${text} ${pc.dim(`(${m.missing} without)`)}` : text;
}

function mean(m: Measured): string {
  return m.stats ? m.stats.mean.toFixed(1) : '-';
}

function costCell(m: Measured): string {
  if (!m.stats) return '-';
  const text = `${usd(m.stats.mean)} / ${usd(m.stats.mean * m.stats.n)}`;
  return m.missing > 0 ? `${text} ${pc.dim(`(${m.missing} unpriced)`)}` : text;
}

/**
 * The paired verdicts; with a single agent there is nothing to compare, and the output says so and
 * how (every command that makes a run can make another; `compare` pairs them), with `compareHint`,
 * the command that compares this run, when the caller knows it.
 */
export function formatComparisons(comparisons: readonly AgentComparison[], agentCount: number, compareHint?: string): string {
  if (agentCount < 2) {
    const how = compareHint ?? 'crucible compare with a run of another agent on the same tasks';
    return pc.dim(`one agent: no comparison (to compare, make a run of another agent on the same tasks, then: ${how})`);
  }
  const first = comparisons[0];
  const method = first ? `${first.method} test, ${Math.round(first.confidence * 100)}%` : '';
  const rows = comparisons.map((c) => [
    c.a,
    c.b,
    String(c.tasks),
    c.diff === null ? '-' : points(c.diff),
    c.low === null || c.high === null ? '-' : `[${points(c.low)}, ${points(c.high)}]${c.floor ? '*' : ''}`,
    c.pValue === null ? '-' : c.pValue < 0.001 ? '<0.001' : c.pValue.toFixed(3),
    verdictText(c.verdict, c.a, c.b),
  ]);
  const lines = [
    pc.bold(`paired comparison`) + pc.dim(` (tasks both agents were scored on; ${method})`),
    table(['A', 'B', 'tasks', 'A − B', 'interval', 'p', 'verdict'], rows),
  ];
  for (const c of comparisons) if (c.note) lines.push(pc.dim(`${c.a} vs ${c.b}: ${c.note}`));
  if (comparisons.some((c) => c.floor)) {
    lines.push(
      pc.dim(
        "* the paired interval was narrower than the noise of the trials behind it: shown is Newcombe's interval on the pooled counts, and the agents are separated only if it excludes 0 too",
      ),
    );
  }
  return lines.join('\n');
}

export function verdictText(verdict: AgentComparison['verdict'], a: string, b: string): string {
  if (verdict === 'A better') return pc.green(`A better (${a})`);
  if (verdict === 'B better') return pc.green(`B better (${b})`);
  return pc.yellow('not separated');
}

/** A difference of rates in percentage points, signed. */
export function points(d: number): string {
  const text = Math.abs(d * 100).toFixed(1);
  // Round first, so -0.00001 does not print as "−0.0".
  return `${Number(text) === 0 ? '' : d > 0 ? '+' : '−'}${text} pts`;
}

/** A suite run: each agent's pass rate on each task set, with n and interval, like the agent table. */
function formatTaskSets(sets: readonly TaskSetBreakdown[], conf: string): string {
  const rows = sets.flatMap((s) =>
    s.agents.map((a) => [
      s.taskSet,
      a.agent,
      a.passRate ? pct(a.passRate.rate, 1) : 'n/a',
      a.passRate ? interval(a.passRate) : '-',
      String(a.scored),
      String(a.tasks),
      a.harnessErrors.count === 0 ? '0' : pc.yellow(`${a.harnessErrors.count} of ${a.attempts}`),
    ]),
  );
  return [pc.bold('by task set'), table(['task set', 'agent', 'pass rate', `${conf} interval`, 'n', 'tasks', 'errors'], rows)].join('\n');
}

function formatRepos(profiles: readonly RepoProfile[], conf: string, cwd: string | undefined): string {
  // A repo of one task would only repeat that task's rate, pooled over agents: say why there is no table.
  if (profiles.every((p) => p.tasks === 1)) {
    return `${pc.bold('repo profile')} ${pc.dim(
      `each of the ${profiles.length} repos has one task, so per-repo rates would only repeat per-task results (give tasks of one repository the same repo_key to group them)`,
    )}`;
  }
  const rate = (r: RateEstimate | null): string => (r ? pct(r.rate, 1) : 'n/a');
  // Effort columns only when some attempt reported the figure, as in the agent table.
  const columns: Array<{ header: string; cell: (p: RepoProfile) => string; shown: boolean }> = [
    { header: 'repo', cell: (p) => displayRepo(p.repo, cwd), shown: true },
    { header: 'agents', cell: (p) => p.agents.join(', ') || '-', shown: true },
    { header: 'tasks', cell: (p) => String(p.tasks), shown: true },
    { header: 'attempts', cell: (p) => String(p.attempts), shown: true },
    { header: 'pass rate', cell: (p) => rate(p.passRate), shown: true },
    { header: `${conf} interval`, cell: (p) => (p.passRate ? interval(p.passRate) : '-'), shown: true },
    { header: 'regressions', cell: (p) => rate(p.regressionRate), shown: true },
    { header: 'disqualified', cell: (p) => rate(p.disqualificationRate), shown: true },
    { header: 'turns', cell: (p) => mean(p.turns), shown: profiles.some((p) => p.turns.stats) },
    { header: 'tool calls', cell: (p) => mean(p.toolCalls), shown: profiles.some((p) => p.toolCalls.stats) },
    { header: 'tokens', cell: (p) => (p.totalTokens.stats ? count(p.totalTokens.stats.mean) : '-'), shown: profiles.some((p) => p.totalTokens.stats) },
    { header: 'cost', cell: (p) => (p.costUsd.stats ? usd(p.costUsd.stats.mean) : '-'), shown: profiles.some((p) => p.costUsd.stats) },
    { header: 'errors', cell: (p) => (p.harnessErrors.count === 0 ? '0' : pc.yellow(String(p.harnessErrors.count))), shown: true },
  ];
  const shown = columns.filter((c) => c.shown);
  return [
    pc.bold('repo profile') + pc.dim(' (pooled over agents; not a ranking of repos)'),
    table(
      shown.map((c) => c.header),
      profiles.map((p) => shown.map((c) => c.cell(p))),
    ),
  ].join('\n');
}

/** Histories written before repo identities keyed local repos by absolute path; under the working directory they read better relative. */
export function displayRepo(key: string, cwd: string | undefined): string {
  if (!key.startsWith('/') || cwd === undefined) return key;
  const rel = relative(cwd, key);
  return rel.startsWith('..') ? key : rel || '.';
}
