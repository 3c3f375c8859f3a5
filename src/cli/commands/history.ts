import pc from 'picocolors';
import { MAX_PAGE_SIZE, type AttemptRow, type Page, type RunRow } from '../../infra/store/index.js';
import { InputError } from '../../core/errors.js';
import { wholeNumber } from '../args.js';
import { colorVerdict, count, csv, formatDuration, table, usd } from '../format.js';
import { asInputError, openHistoryReader, resolveRunId } from '../history-reader.js';
import { EVALUATION_CSV, evaluationKind, listEvaluations, printEvaluations } from './history-evaluations.js';
import { shownStateDir } from '../state-dir-option.js';
import type { CliIo } from '../io.js';

export interface HistoryCommandOptions {
  agent?: string;
  task?: string;
  run?: string;
  since?: string;
  limit?: string;
  runs?: boolean;
  evaluations?: boolean;
  kind?: string;
  json?: boolean;
  csv?: boolean;
  out: string;
}

export async function historyCommand(opts: HistoryCommandOptions, io: CliIo): Promise<void> {
  const limit = wholeNumber('--limit', opts.limit, 50);
  if (opts.json && opts.csv) throw new InputError('--json and --csv: one output format at a time (fix: drop one of them)');
  if (opts.runs && (opts.task || opts.run))
    throw new InputError(`--runs lists runs; ${opts.task ? '--task' : '--run'} filters attempts (fix: drop --runs or the filter)`);
  const kind = evaluationKind(opts.kind);
  const evaluations = opts.evaluations === true || kind !== undefined;
  if (evaluations) refuseAttemptFilters(opts);
  const reader = openHistoryReader(opts.out, io.cwd);
  if (reader === undefined) {
    if (opts.json) io.stdout.write('[]\n');
    else if (!opts.csv) io.stdout.write(`no history yet in ${shownStateDir(opts.out, io.cwd)} (run \`crucible run\` first)\n`);
    else io.stdout.write(csv([evaluations ? EVALUATION_CSV : opts.runs ? RUN_CSV : ATTEMPT_CSV]));
    return;
  }
  try {
    if (evaluations) {
      printEvaluations(opts, listEvaluations(reader, kind, Math.min(limit, MAX_PAGE_SIZE)), io);
    } else if (opts.runs) {
      const rows = collect(limit, (page) => asInputError(() => reader.listRuns({ agent: opts.agent, since: opts.since, ...page })));
      print(opts, rows, RUN_CSV, runCsvRow, runTable, io);
    } else {
      const runId = opts.run ? resolveRunId(reader, opts.run, '--run') : undefined;
      const filter = { agent: opts.agent, taskId: opts.task, since: opts.since, runId };
      const rows = collect(limit, (page) => asInputError(() => reader.listAttempts({ ...filter, ...page })));
      print(opts, rows, ATTEMPT_CSV, attemptCsvRow, (r) => attemptTable(r, runId === undefined), io);
    }
  } finally {
    reader.close();
  }
}

/** ci and gate results have no agent, task, run or time filter; say so instead of ignoring one. */
function refuseAttemptFilters(opts: HistoryCommandOptions): void {
  const flag = opts.runs ? '--runs' : opts.agent ? '--agent' : opts.task ? '--task' : opts.run ? '--run' : opts.since ? '--since' : undefined;
  const what = flag === '--runs' ? 'lists runs' : 'filters runs and attempts';
  if (flag) throw new InputError(`--evaluations lists ci and gate results; ${flag} ${what} (fix: drop ${flag} or --evaluations/--kind)`);
}

/** Pages through the store (at most MAX_PAGE_SIZE per query) until `limit` rows or the end. */
function collect<T>(limit: number, page: (request: { limit: number; cursor?: string }) => Page<T>): T[] {
  const rows: T[] = [];
  let cursor: string | undefined;
  while (rows.length < limit) {
    const next = page({ limit: Math.min(MAX_PAGE_SIZE, limit - rows.length), ...(cursor ? { cursor } : {}) });
    rows.push(...next.items);
    if (next.nextCursor === null) break;
    cursor = next.nextCursor;
  }
  return rows;
}

function print<T>(opts: HistoryCommandOptions, rows: T[], header: string[], csvRow: (r: T) => Cell[], text: (rows: T[]) => string, io: CliIo): void {
  if (opts.json) io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (opts.csv) io.stdout.write(csv([header, ...rows.map(csvRow)]));
  else io.stdout.write(rows.length === 0 ? `${pc.dim('nothing matches')}\n` : `${text(rows)}\n`);
}

type Cell = string | number | boolean | null;

const ATTEMPT_CSV = [
  'attemptId',
  'runId',
  'taskId',
  'taskVersion',
  'agent',
  'trial',
  'verdict',
  'cause',
  'message',
  'startedAt',
  'finishedAt',
  'totalMs',
  'agentMs',
  'f2pPassed',
  'f2pTotal',
  'p2pPassed',
  'p2pTotal',
  'filesChanged',
  'turns',
  'toolCalls',
  'inputTokens',
  'outputTokens',
  'costUsd',
  'repoKey',
  'category',
  'difficulty',
];

function attemptCsvRow(a: AttemptRow): Cell[] {
  return [
    a.attemptId,
    a.runId,
    a.taskId,
    a.taskVersion,
    a.agent,
    a.trial,
    a.verdict,
    a.cause,
    a.message,
    a.startedAt,
    a.finishedAt,
    a.totalMs,
    a.agentMs,
    a.failToPass?.passed ?? null,
    a.failToPass?.total ?? null,
    a.passToPass?.passed ?? null,
    a.passToPass?.total ?? null,
    a.diff?.filesChanged ?? null,
    a.turns,
    a.toolCalls,
    a.usage?.inputTokens ?? null,
    a.usage?.outputTokens ?? null,
    a.usage?.costUsd ?? null,
    a.repoKey,
    a.category,
    a.difficulty,
  ];
}

function attemptTable(rows: AttemptRow[], withRun: boolean): string {
  const hasUsage = rows.some((r) => r.usage !== null);
  const header = [
    'finished',
    'attempt',
    ...(withRun ? ['run'] : []),
    'task',
    'agent',
    'trial',
    'result',
    'time',
    ...(hasUsage ? ['tokens', 'cost'] : []),
    'cause',
  ];
  return table(
    header,
    rows.map((a) => [
      shortTime(a.finishedAt),
      a.attemptId,
      ...(withRun ? [a.runId] : []),
      a.taskId,
      a.agent,
      String(a.trial),
      colorVerdict(a.verdict),
      formatDuration(a.totalMs),
      ...(hasUsage ? [a.usage ? count(a.usage.inputTokens + a.usage.outputTokens) : '-', a.usage?.costUsd != null ? usd(a.usage.costUsd) : '-'] : []),
      a.cause === 'passed' ? pc.dim(a.cause) : a.cause,
    ]),
  );
}

const RUN_CSV = ['runId', 'taskSet', 'createdAt', 'finishedAt', 'agents', 'planned', 'recorded', 'PASS', 'FAIL', 'ERROR', 'stoppedEarly', 'configHash', 'kind'];

function runCsvRow(r: RunRow): Cell[] {
  return [
    r.runId,
    r.taskSet,
    r.createdAt,
    r.finishedAt,
    r.agents.join(' '),
    r.planned,
    r.recorded.attempts,
    r.recorded.PASS,
    r.recorded.FAIL,
    r.recorded.ERROR,
    r.stoppedEarly,
    r.configHash,
    r.kind,
  ];
}

function runTable(rows: RunRow[]): string {
  return table(
    ['run', 'kind', 'created', 'task set', 'agents', 'done', 'pass', 'fail', 'error', 'status'],
    rows.map((r) => [
      r.runId,
      r.kind === 'validate' ? pc.cyan(r.kind) : pc.dim(r.kind),
      shortTime(r.createdAt),
      r.taskSet,
      r.agents.join(', '),
      `${r.recorded.attempts}/${r.planned}`,
      pc.green(String(r.recorded.PASS)),
      pc.red(String(r.recorded.FAIL)),
      r.recorded.ERROR > 0 ? pc.yellow(String(r.recorded.ERROR)) : '0',
      runStatus(r),
    ]),
  );
}

/** A run without finishedAt is running, or was killed: resume tells them apart (it refuses a live one). */
export function runStatus(r: RunRow): string {
  if (r.finishedAt === null) return pc.yellow('unfinished');
  if (r.recorded.attempts < r.planned) return pc.yellow('stopped early');
  return 'complete';
}

/** `2026-11-30T09:17:56.123Z` → `2026-11-30 09:17` (UTC, as stored). */
function shortTime(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}
