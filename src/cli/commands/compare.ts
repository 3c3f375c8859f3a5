import { join } from 'node:path';
import pc from 'picocolors';
import { compareRuns, readPlanFile, runsDirOf, type CellDelta, type PlannedTask, type RunComparison } from '../../engine/index.js';
import type { HistoryRunKind } from '../../infra/store/index.js';
import { InputError } from '../../core/errors.js';
import { pct, table } from '../format.js';
import { points, verdictText } from '../format-stats.js';
import { requireHistory, resolveRunId } from '../history-reader.js';
import { environmentsOfRun } from '../../features/report/index.js';
import { formatStrengthSummary, readRunStrength, type StrengthSummary } from '../../features/strength/index.js';
import type { CliIo } from '../io.js';

export interface CompareCommandOptions {
  json?: boolean;
  out: string;
}

export async function compareCommand(a: string, b: string, opts: CompareCommandOptions, io: CliIo): Promise<void> {
  const reader = requireHistory(opts.out);
  let comparison: RunComparison;
  let strength: RunStrengths;
  try {
    const runA = resolveRunId(reader, a, 'run-a');
    const runB = resolveRunId(reader, b, 'run-b');
    if (runA === runB) throw new InputError(`${a} and ${b} are the same run ${runA} (fix: pass two different runs)`);
    comparison = compareRuns(
      {
        runId: runA,
        cells: reader.cells(runA),
        tasks: await plannedTasks(opts.out, runA, reader.getRun(runA)?.kind),
        environments: environmentsOfRun(reader, runA),
      },
      {
        runId: runB,
        cells: reader.cells(runB),
        tasks: await plannedTasks(opts.out, runB, reader.getRun(runB)?.kind),
        environments: environmentsOfRun(reader, runB),
      },
    );
    strength = runStrengths(join(runsDirOf(opts.out, reader.getRun(runA)?.kind), runA), join(runsDirOf(opts.out, reader.getRun(runB)?.kind), runB));
  } finally {
    reader.close();
  }
  const measured = strength.a !== undefined || strength.b !== undefined;
  if (opts.json) io.stdout.write(`${JSON.stringify(measured ? { ...comparison, strength } : comparison, null, 2)}\n`);
  else io.stdout.write(`${formatComparison(comparison, strength)}\n`);
}

/** Each run's task-set strength: what its run directory's strength.json held when it ran (absent when none). */
export interface RunStrengths {
  a?: StrengthSummary;
  b?: StrengthSummary;
}

export function runStrengths(runDirA: string, runDirB: string): RunStrengths {
  const a = readRunStrength(runDirA);
  const b = readRunStrength(runDirB);
  return { ...(a ? { a } : {}), ...(b ? { b } : {}) };
}

/** The plan's task hashes say whether a task changed between the runs; a run without plan.json just lacks that note. */
async function plannedTasks(stateDir: string, runId: string, kind: HistoryRunKind | undefined): Promise<PlannedTask[] | undefined> {
  try {
    return (await readPlanFile(join(runsDirOf(stateDir, kind), runId), runId)).tasks;
  } catch {
    return undefined;
  }
}

export function formatComparison(c: RunComparison, strength: RunStrengths = {}): string {
  const out: string[] = [`${pc.bold('compare')} A ${c.runA}  →  B ${c.runB}`];
  const rate = (r: number | null, cell: CellDelta['a']): string => (cell === null ? '-' : r === null ? 'n/a' : `${pct(r, 1)} (${cell.passes}/${cell.n})`);
  out.push(
    table(
      ['agent', 'task', 'A', 'B', 'B − A', 'change'],
      c.cells.map((d) => [d.agent, d.taskId, rate(d.rateA, d.a), rate(d.rateB, d.b), d.delta === null ? '-' : points(d.delta), changeText(d.change)]),
    ),
  );
  const regressions = c.regressions.map((d) => `${d.agent} ${d.taskId} (${points(d.delta ?? 0)})`);
  out.push(regressions.length > 0 ? `${pc.red(`${regressions.length} regression(s)`)}: ${regressions.join(', ')}` : pc.green('no cell got worse'));
  if (c.improvements.length > 0)
    out.push(`${pc.green(`${c.improvements.length} improvement(s)`)}: ${c.improvements.map((d) => `${d.agent} ${d.taskId}`).join(', ')}`);
  if (c.pairs.length > 0) {
    const first = c.pairs[0]?.comparison;
    out.push(
      '',
      pc.bold('paired comparison') + pc.dim(` (tasks both runs scored; ${first?.method ?? ''} test, ${Math.round((first?.confidence ?? 0.95) * 100)}%)`),
      table(
        ['agent in A', 'agent in B', 'tasks', 'A − B', 'interval', 'p', 'verdict'],
        c.pairs.map(({ agentA, agentB, comparison: p }) => [
          agentA,
          agentB,
          String(p.tasks),
          p.diff === null ? '-' : points(p.diff),
          p.low === null || p.high === null ? '-' : `[${points(p.low)}, ${points(p.high)}]`,
          p.pValue === null ? '-' : p.pValue.toFixed(3),
          verdictText(p.verdict, `run A`, `run B`),
        ]),
      ),
    );
    for (const { agentA, comparison: p } of c.pairs) if (p.note) out.push(pc.dim(`${agentA}: ${p.note}`));
  }
  out.push(...strengthLines(strength));
  for (const note of c.notes) out.push(`${pc.yellow('note')} ${note}`);
  return out.join('\n');
}

/**
 * The task set's strength each pass rate was measured beside; nothing when neither run had one, and
 * a run without one said so, since its pass rates are then unqualified.
 */
function strengthLines(s: RunStrengths): string[] {
  if (s.a === undefined && s.b === undefined) return [];
  const side = (x: StrengthSummary | undefined): string => (x === undefined ? 'not measured' : formatStrengthSummary(x));
  return [
    '',
    pc.bold('task strength') + pc.dim(' (near-miss wrong fixes the tests fail: crucible validate --strength)'),
    `  A ${side(s.a)}`,
    `  B ${side(s.b)}`,
  ];
}

function changeText(change: CellDelta['change']): string {
  if (change === 'worse') return pc.red(change);
  if (change === 'better') return pc.green(change);
  return pc.dim(change);
}
