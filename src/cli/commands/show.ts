import { statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { InputError } from '../../core/errors.js';
import pc from 'picocolors';
import { formatDefect } from '../../domain/tasks/index.js';
import { runsDirOf } from '../../engine/index.js';
import {
  agentInfoText,
  atifProblems,
  attemptRowsOf,
  DEFAULT_ARTIFACT_LIMITS,
  formatTrajectoryText,
  isAtif,
  parseTrajectory,
  readBounded,
  type AtifTrajectory,
  guardOfRecordedRun,
  listItemOf as listItemOfRow,
  loadTrajectory,
  statsOfRecordedRun,
  storedStats,
} from '../../features/report/index.js';
import { gatewayUsageText, usageAnomalyText } from '../../core/format/index.js';
import type { AttemptDetail, HistoryReader } from '../../infra/store/index.js';
import type { AttemptResult, EnvironmentProvenance, TestRunEvidence } from '../../core/types/index.js';
import { colorVerdict, count, formatDuration, usd } from '../format.js';
import { formatRunReport } from '../format-run.js';
import { formatUsageTable } from '../model-run.js';
import { asInputError, requireHistory, resolveIdOrFail } from '../history-reader.js';
import { runStatus } from './history.js';
import { recordedFailurePatterns } from '../../domain/failures/index.js';
import type { AgentFailurePatterns } from '../../core/types/index.js';
import type { CliIo } from '../io.js';

export interface ShowCommandOptions {
  json?: boolean;
  out: string;
}

export async function showCommand(id: string, opts: ShowCommandOptions, io: CliIo): Promise<void> {
  if (isTrajectoryFile(id)) return showTrajectoryFile(id, opts, io);
  const reader = requireHistory(opts.out);
  try {
    const resolved = resolveIdOrFail(reader, id);
    if (resolved.kind === 'run') showRun(reader, resolved.runId, opts, io);
    else await showAttempt(reader, resolved.attemptId, opts, io);
  } finally {
    reader.close();
  }
}

function showRun(reader: HistoryReader, runId: string, opts: ShowCommandOptions, io: CliIo): void {
  const run = asInputError(() => reader.getRun(runId));
  if (run === undefined) return;
  const rows = attemptRowsOf(reader, runId);
  // A run that never finished (killed) has no stored statistics: computed as the dashboard does.
  const stats = storedStats(run.stats) ?? statsOfRecordedRun(reader, rows);
  const runDir = join(runsDirOf(opts.out, run.kind), runId);
  // summary.json's `guard`, present only for a run with --guard.
  const guard = guardOfRecordedRun(runDir, reader, rows);
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ ...run, stats, ...(guard ? { guard } : {}), attempts: rows }, null, 2)}\n`);
    return;
  }
  const header = [
    `${pc.bold(`${run.kind === 'validate' ? 'validate run' : 'run'} ${run.runId}`)}  ${runStatus(run)}`,
    pc.dim(
      `task set ${run.taskSet} · agents ${run.agents.join(', ')} · created ${run.createdAt}${run.finishedAt ? ` · finished ${run.finishedAt}` : ''} · config ${run.configHash ?? '-'}`,
    ),
  ].join('\n');
  const report = formatRunReport({
    runId,
    runDir,
    attempts: rows.map(listItemOfRow),
    planned: run.planned,
    executed: run.recorded.attempts,
    counts: run.recorded,
    stats,
    ...(guard ? { guard } : {}),
    ...failurePatternsArg(runDir),
  });
  io.stdout.write(`${header}\n\n${report}\n`);
  // The table `run` prints at its end, from the recorded attempts: only the metered ones are read in full.
  const usage = formatUsageTable(rows.filter((r) => r.usage !== null).flatMap((r) => reader.getAttempt(r.attemptId)?.attempt ?? []));
  if (usage) io.stdout.write(`\n${usage}\n`);
}

async function showAttempt(reader: HistoryReader, attemptId: string, opts: ShowCommandOptions, io: CliIo): Promise<void> {
  const detail = asInputError(() => reader.getAttempt(attemptId));
  if (detail === undefined) return;
  const dir = join(runsDirOf(opts.out, reader.getRun(detail.runId)?.kind), detail.runId, 'attempts', attemptId);
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(detail.attempt, null, 2)}\n`);
    return;
  }
  io.stdout.write(`${formatAttempt(detail, dir, io)}\n`);
  // The same reader and events as the dashboard and the report, so any agent's trajectory shows.
  const trajectory = await loadTrajectory(dir);
  if (trajectory !== null) io.stdout.write(`\n${pc.bold('trajectory')}\n${formatTrajectoryText(trajectory)}\n`);
}

/** A path to a trajectory file (`trajectory.json`, `…/x.jsonl`), not a run or attempt id. */
function isTrajectoryFile(id: string): boolean {
  if (!/\.jsonl?$/.test(id) && !id.includes('/')) return false;
  try {
    return statSync(id).isFile();
  } catch {
    return false;
  }
}

/**
 * `crucible show trajectory.json`: a trajectory file, Harbor's ATIF (what `export --format atif`
 * writes, or Harbor's own agent/trajectory.json) or Crucible's trajectory.jsonl, drawn as an
 * attempt's is. An ATIF document the RFC's rules refuse is still drawn, its problems on stderr.
 */
async function showTrajectoryFile(file: string, opts: ShowCommandOptions, io: CliIo): Promise<void> {
  const limit = DEFAULT_ARTIFACT_LIMITS.trajectoryBytes * 32;
  const text = await readBounded(file, limit);
  if (text === null) throw new InputError(`${file}: cannot be read (fix: give a trajectory file)`);
  let doc: unknown;
  try {
    doc = JSON.parse(text.text);
  } catch {
    doc = undefined;
  }
  if (doc !== undefined && !isAtif(doc))
    throw new InputError(
      `${file}: not an ATIF trajectory (schema_version is not "ATIF-v1.x") (fix: give Harbor's trajectory.json or a file written by crucible export --format atif)`,
    );
  if (opts.json) {
    io.stdout.write(`${JSON.stringify(doc ?? parseTrajectory(text.text), null, 2)}\n`);
    return;
  }
  const parsed = parseTrajectory(text.text);
  if (doc !== undefined) {
    const t = doc as Partial<AtifTrajectory>;
    const steps = Array.isArray(t.steps) ? t.steps.length : 0;
    const agent = t.agent ? `${String(t.agent.name)} ${String(t.agent.version)}${t.agent.model_name ? ` · model ${t.agent.model_name}` : ''}` : 'unknown agent';
    io.stdout.write(`${pc.bold(`${String(t.schema_version)} trajectory ${t.session_id ?? ''}`)}  ${pc.dim(`${agent} · ${steps} steps`)}\n`);
    const m = t.final_metrics;
    if (m)
      io.stdout.write(
        pc.dim(
          `tokens ${m.total_prompt_tokens ?? '?'} in / ${m.total_completion_tokens ?? '?'} out${m.total_cost_usd !== undefined ? ` · cost ${usd(m.total_cost_usd)}` : ''}\n`,
        ),
      );
    if (t.notes) io.stdout.write(pc.dim(`${t.notes}\n`));
    const problems = atifProblems(doc);
    for (const p of problems.slice(0, 10)) io.stderr.write(`warning ${file}: ${p}\n`);
    if (problems.length > 10) io.stderr.write(`warning ${file}: … ${problems.length - 10} more problems with the ATIF schema\n`);
  } else if (parsed.total === 0) {
    throw new InputError(`${file}: neither an ATIF trajectory nor trajectory.jsonl lines (fix: give a trajectory file)`);
  }
  io.stdout.write(`${formatTrajectoryText(parsed)}\n`);
  if (text.truncated) io.stdout.write(pc.dim(`… the file has ${text.bytes} bytes: only the first ${limit} were read\n`));
}

/** Everything recorded about one attempt, in the order a person checks it: verdict, why, evidence, cost. */
export function formatAttempt(detail: AttemptDetail, dir: string, io: CliIo): string {
  const a: AttemptResult = detail.attempt;
  const out: string[] = [];
  out.push(`${pc.bold(`attempt ${a.attemptId}`)}  ${pc.dim(`run ${a.runId} · #${a.index}`)}`);
  out.push(`task ${a.taskId} (version ${a.taskVersion}) · agent ${a.agent} · trial ${a.trial} · sandbox ${a.sandbox}`);
  if (a.agentInfo) out.push(pc.dim(`agent ${a.agent}: ${agentInfoText(a.agentInfo)}${a.agentInfo.package ? ` · package ${a.agentInfo.package}` : ''}`));
  out.push(`${colorVerdict(a.verdict, 0)} ${a.cause}${a.score !== undefined ? ` · score ${a.score}` : ''}`);
  if (a.message) out.push(`  ${a.message}`);
  if (a.harnessError) out.push(pc.yellow(`harness error in ${a.harnessError.phase}: ${a.harnessError.message}`));
  // A failed setup command's output, cut to what shows the reason (the whole excerpt is in setup-output.txt too).
  if (a.harnessError?.detail) out.push(...a.harnessError.detail.split('\n').map((line) => `  ${pc.dim('│')} ${line}`));
  for (const d of a.taskError?.defects ?? []) out.push(pc.red(`task error: ${formatDefect(d)}`));
  if (a.resourceLimit) out.push(pc.yellow(`resource limit hit: ${a.resourceLimit}`));

  const t = a.timings;
  const baseline = t.baselineMs !== undefined ? ` · baseline ${formatDuration(t.baselineMs)}` : '';
  out.push(
    '',
    pc.bold('timings'),
    `  prepare ${formatDuration(t.prepareMs)}${prepareParts(t)}${baseline} · agent ${formatDuration(t.agentMs)} · verify ${formatDuration(t.verifyMs)} · total ${formatDuration(t.totalMs)}`,
  );
  out.push(`  ${a.startedAt} → ${a.finishedAt}`);

  if (a.environment) out.push('', pc.bold('environment'), ...formatEnvironment(a.environment));

  const r = a.agentResult;
  if (r) {
    const parts = [`stop ${r.stopReason}`];
    if (r.turns !== undefined) parts.push(`${r.turns} turns`);
    if (r.toolCalls !== undefined) parts.push(`${r.toolCalls} tool calls`);
    if (r.usage) {
      const u = r.usage;
      parts.push(
        `tokens ${count(u.inputTokens)} in${u.cacheReadTokens ? ` (${count(u.cacheReadTokens)} cached)` : ''} / ${count(u.outputTokens)} out, ${u.requests} requests`,
      );
      parts.push(u.costUsd === undefined ? 'cost unknown (unpriced model)' : `cost ${usd(u.costUsd)}`);
    }
    out.push('', pc.bold('agent'), `  ${parts.join(' · ')}`);
    if (r.usage?.anomalies) out.push(pc.yellow(`  ${usageAnomalyText(r.usage.anomalies)}`));
    const gateway = r.usage && gatewayUsageText(r.usage);
    if (gateway) out.push(pc.yellow(`  ${gateway}`));
    if (r.error) out.push(`  error: ${r.error}`);
  }

  for (const [label, tests] of [
    ['baseline tests', a.baselineTests],
    ['baseline held-out tests', a.baselineHeldOut],
    ['tests', a.tests],
    ['held-out tests', a.heldOut],
  ] as const) {
    if (tests) out.push('', pc.bold(label), ...formatTests(tests));
  }

  if (a.diff) {
    out.push('', pc.bold('diff'), `  ${a.diff.filesChanged} file(s), ${pc.green(`+${a.diff.added}`)} ${pc.red(`−${a.diff.deleted}`)}`);
    for (const f of a.diff.files.slice(0, 40)) {
      const name = f.oldPath ? `${f.oldPath} → ${f.path}` : f.path;
      out.push(`  ${f.kind.padEnd(8)} ${name} ${f.binary ? pc.dim('(binary)') : pc.dim(`+${f.added} −${f.deleted}`)}`);
    }
    if (a.diff.files.length > 40) out.push(pc.dim(`  … ${a.diff.files.length - 40} more`));
    if (a.diff.patch?.truncated) out.push(pc.yellow(`  diff.patch cut at ${a.diff.patch.capBytes} bytes`));
  }
  if (a.notGraded && a.notGraded.count > 0) {
    out.push('', pc.bold('not graded'), pc.dim('  changed by the agent, left out of the verification copy (docs/grading.md)'));
    for (const item of a.notGraded.items.slice(0, 20)) out.push(`  ${item.reason.padEnd(10)} ${item.path}`);
    if (a.notGraded.count > 20) out.push(pc.dim(`  … ${a.notGraded.count - 20} more`));
  }

  if (detail.checks.length > 0) {
    out.push('', pc.bold('checks'));
    for (const c of detail.checks) out.push(`  ${c.passed ? pc.green('✓') : pc.red('✗')} ${c.id} ${pc.dim(c.severity)} ${c.message}`);
  }
  out.push('', pc.dim(`evidence in ${relative(io.cwd, dir) || dir}`));
  return out.join('\n');
}

/** ` (copy 0.2s · setup 41.0s · baseline commit 0.3s)`, from the parts recorded (older attempts have none). */
function prepareParts(t: AttemptResult['timings']): string {
  const parts = [
    ['copy', t.copyMs],
    ['setup', t.setupMs],
    ['baseline commit', t.baselineCommitMs],
  ].flatMap(([label, ms]) => (typeof ms === 'number' ? [`${label} ${formatDuration(ms)}`] : []));
  return parts.length > 0 ? pc.dim(` (${parts.join(' · ')})`) : '';
}

/**
 * Where the attempt's commands ran: the reference as configured, the image, its digest (or plainly
 * none: a local image or a tag may change), the platform, the limits in force and the engine.
 */
export function formatEnvironment(e: EnvironmentProvenance): string[] {
  const what =
    e.source === 'dockerfile' ? `Dockerfile ${e.reference}` : e.source === 'host' ? `${e.reference} (the host's toolchain, bound read-only)` : e.reference;
  const lines = [`  reference ${what}${e.contextHash ? pc.dim(` · context sha256:${e.contextHash.slice(0, 12)}`) : ''}`];
  const ran =
    e.containerImageId === undefined
      ? ''
      : e.containerImageId === e.imageId
        ? pc.dim(' · containers ran it')
        : pc.yellow(` · containers ran ${e.containerImageId}`);
  lines.push(`  image ${e.imageId}${ran}`);
  const digest = e.repoDigest ?? 'none (local image: mutable)';
  lines.push(`  digest ${digest}${e.repoDigest !== null ? pc.dim(e.immutable ? ' · pinned by the reference' : ' · the reference is a tag: mutable') : ''}`);
  const l = e.limits;
  const limits = [
    l.cpus !== undefined ? `cpus ${l.cpus}` : undefined,
    l.memoryBytes !== undefined ? `memory ${bytes(l.memoryBytes)}` : undefined,
    l.pids !== undefined ? `pids ${l.pids}` : undefined,
    l.storageBytes !== undefined ? `storage ${bytes(l.storageBytes)}` : undefined,
  ].filter((x) => x !== undefined);
  lines.push(`  platform ${e.platform} · limits ${limits.join(', ') || 'none'} · engine Docker ${e.engineVersion}`);
  return lines;
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

function formatTests(t: TestRunEvidence): string[] {
  const lines = [
    `  F2P ${t.failToPass.passed}/${t.failToPass.total} · P2P ${t.passToPass.passed}/${t.passToPass.total} · ${t.parsed} parsed · exit ${t.exitCode ?? 'signal'}${t.timedOut ? ' (timed out)' : ''} · ${formatDuration(t.durationMs)}${t.consistent ? '' : pc.yellow(' · report and exit code disagree')}`,
  ];
  if (t.invalidReason) lines.push(pc.yellow(`  invalid: ${t.invalidReason}`));
  if (t.reward !== undefined) lines.push(`  reward ${t.reward}${t.reward === 1 ? '' : pc.dim(' (PASS needs 1)')}`);
  const failing = [...t.failToPass.failing.map((f) => ({ ...f, group: 'F2P' })), ...t.passToPass.failing.map((f) => ({ ...f, group: 'P2P' }))];
  for (const f of failing.slice(0, 20)) lines.push(`  ${pc.red('✗')} ${f.group} ${f.id} ${pc.dim(`(${f.reason})`)}`);
  if (failing.length > 20) lines.push(pc.dim(`  … ${failing.length - 20} more failing`));
  return lines;
}

function failurePatternsArg(runDir: string): { failurePatterns?: AgentFailurePatterns[] } {
  const failurePatterns = recordedFailurePatterns(runDir);
  return failurePatterns ? { failurePatterns } : {};
}
