import { dirname, relative, resolve } from 'node:path';
import { shellWord } from '../core/format/index.js';
import { shownPath } from './io.js';
import { STATE_DIR_DEFAULT } from './state-dir-option.js';
import pc from 'picocolors';
import type { AgentInfo, RunStats } from '../core/types/index.js';
import type { VerdictCounts } from '../infra/store/index.js';
import { agentInfoText, type AttemptListItem } from '../features/report/index.js';
import { ATTEMPT_COLUMNS, attemptCells, table as tableOf } from './format.js';
import { formatStats } from './format-stats.js';
import { guardLine, type GuardAgentCounts } from '../domain/guard/index.js';
import { failurePatternLines } from '../domain/failures/index.js';
import type { AgentFailurePatterns } from '../core/types/index.js';
import type { AdaptiveSummary } from '../engine/index.js';

/** More rows than this and the table shows only attempts that did not pass. */
export const MAX_TABLE_ROWS = 60;

export interface RunReportInput {
  runId: string;
  runDir?: string;
  attempts: readonly AttemptListItem[];
  planned: number;
  executed: number;
  counts: VerdictCounts;
  stats: RunStats | null;
  ended?: 'completed' | 'fail-fast' | 'interrupted';
  /** An adaptive run's stop: it ends once its question is decided, so fewer attempts than planned is its design, said by its own line. */
  adaptive?: AdaptiveSummary;
  failedFast?: { taskId: string; agent: string; trial: number; cause: string };
  reused?: number;
  /** --max-cost-total / --max-tokens-total: what the run spent, and the cap that stopped it. */
  runBudget?: { limits: { maxCostUsd?: number; maxTokens?: number }; spentUsd: number; spentTokens: number; reached?: 'cost' | 'tokens' };
  /** External agents' version, profile hash and model, by agent spec. */
  agentInfo?: Readonly<Record<string, AgentInfo>>;
  /** `--guard` runs: the online guard's counts per agent. */
  guard?: readonly GuardAgentCounts[];
  /** What the failed attempts did, per agent (docs/failure-patterns.md). */
  failurePatterns?: readonly AgentFailurePatterns[];
}

/** The end-of-run report: the attempts, the statistics, the totals and what to do next. */
/** `cwd`: where the user runs from; paths under it are shown relative to it. */
export function formatRunReport(r: RunReportInput, cwd?: string): string {
  const parts: string[] = [];
  if (r.attempts.length > 0) parts.push(attemptTable(r.attempts, r.runId));
  if (r.stats) parts.push(formatStats(r.stats, cwd, compareCommand(r, cwd)));
  const infos = Object.entries(r.agentInfo ?? {});
  if (infos.length > 0) parts.push(infos.map(([agent, info]) => `${pc.bold(agent)}  ${pc.dim(agentInfoText(info))}`).join('\n'));
  if (r.guard && r.guard.length > 0) parts.push(r.guard.map((c) => `${pc.bold(c.agent)}  guard ${c.mode}: ${guardLine(c)}`).join('\n'));
  if (r.failurePatterns && r.failurePatterns.length > 0) parts.push([pc.bold('Failure patterns'), ...failurePatternLines(r.failurePatterns)].join('\n'));
  const { PASS, FAIL, ERROR } = r.counts;
  const reused = r.reused ? pc.dim(` (${r.reused} reused)`) : '';
  const totals = [
    `${r.executed}/${r.planned} attempts${reused}: ${pc.green(`${PASS} passed`)}, ${pc.red(`${FAIL} failed`)}, ${pc.yellow(`${ERROR} errored`)}  run ${r.runId}`,
  ];
  if (r.executed < r.planned && !(r.adaptive !== undefined && r.ended === 'completed')) {
    const cap = r.runBudget?.reached;
    const why = cap
      ? cap === 'cost'
        ? `run cost cap reached: $${r.runBudget?.spentUsd} of --max-cost-total $${r.runBudget?.limits.maxCostUsd}`
        : `run token cap reached: ${r.runBudget?.spentTokens} of --max-tokens-total ${r.runBudget?.limits.maxTokens}`
      : r.ended === 'fail-fast' && r.failedFast
        ? `fail-fast after ${r.failedFast.taskId} ${r.failedFast.agent} #${r.failedFast.trial} (${r.failedFast.cause})`
        : r.ended === 'interrupted'
          ? 'interrupted'
          : 'not finished';
    // `resume` keeps the cap plan.json recorded, so after a cap the rest runs only under a higher one.
    const rest = cap
      ? `run the rest with a higher cap: \`crucible run <same arguments> ${cap === 'cost' ? '--max-cost-total' : '--max-tokens-total'} <more> --resume ${r.runId}\``
      : `run the rest with \`crucible resume ${r.runId}\``;
    totals.push(pc.yellow(`stopped early (${why}): planned ${r.planned}, executed ${r.executed}; ${rest}`));
  }
  if (r.runDir) totals.push(pc.dim(`evidence in ${(cwd === undefined ? '' : relative(cwd, r.runDir)) || r.runDir}`));
  parts.push(totals.join('\n'));
  return parts.join('\n\n');
}

/** `crucible compare OTHER RUN`, with the state directory the run is in when it is not the default one here. */
function compareCommand(r: RunReportInput, cwd: string | undefined): string {
  const stateDir = r.runDir === undefined ? undefined : dirname(dirname(r.runDir));
  const flag =
    stateDir === undefined || cwd === undefined || resolve(cwd, STATE_DIR_DEFAULT) === stateDir
      ? ''
      : ` --state-dir ${shellWord(shownPath({ cwd }, stateDir))}`;
  return `crucible compare <other-run-id> ${r.runId}${flag}`;
}

function attemptTable(attempts: readonly AttemptListItem[], runId: string): string {
  if (attempts.length <= MAX_TABLE_ROWS) return table(attempts);
  const notPassed = attempts.filter((a) => a.verdict !== 'PASS');
  const shown = notPassed.slice(0, MAX_TABLE_ROWS);
  const hidden = attempts.length - shown.length;
  const lines = shown.length > 0 ? [table(shown)] : [];
  lines.push(
    pc.dim(
      `… ${hidden} more attempt(s) not shown${shown.length > 0 ? ' (only attempts that did not pass are listed)' : ''}; all of them: crucible history --run ${runId}`,
    ),
  );
  return lines.join('\n');
}

function table(attempts: readonly AttemptListItem[]): string {
  return tableOf(ATTEMPT_COLUMNS, attempts.map(attemptCells));
}
