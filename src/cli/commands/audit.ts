import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, relative, resolve } from 'node:path';
import pc from 'picocolors';
import {
  agentStatus,
  AUDIT_SCHEMA_VERSION,
  defaultRegistry,
  describeContract,
  describeDeparture,
  describeOutcome,
  findRegistry,
  judgeAudit,
  loadRegistry,
  writeAuditReport,
  type AuditReport,
  type FamilyAudit,
  type Registry,
} from '../../features/audit/index.js';
import { InputError } from '../../core/errors.js';
import { defaultConcurrency, MAX_PLANNED_ATTEMPTS } from '../../engine/index.js';
import { importPack, loadTrustPolicy, PackVerificationError, type ImportedPack } from '../../features/pack/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { loadRunInput } from '../../features/suite/index.js';
import { selectTasks } from '../../domain/tasks/index.js';
import { wholeNumber, writableStateDir } from '../args.js';
import { table } from '../format.js';
import { withFlagNames } from '../option-flags.js';
import { chooseSandbox } from '../sandbox-choice.js';
import { formatTaskErrors } from '../run-report.js';
import { runValidationIn } from '../run-session.js';
import type { CliIo } from '../io.js';
import { exitWith, runExitCode } from '../exit.js';

export interface AuditCommandOptions {
  registry?: string;
  runs?: string;
  concurrency?: string;
  task?: string[];
  out: string;
  sandbox?: SandboxKind;
  json?: boolean;
  /** A trust policy (docs/packs.md): a pack must carry the signatures it asks for. */
  trust?: string;
}

/** A pack is named by its archive; anything else is a task set or a suite. */
export function isPackArgument(input: string): boolean {
  return /\.zip$/i.test(input);
}

/**
 * `crucible audit <pack|taskset>`: the reference agents each family's contract names, --runs
 * trials each, through the engine's validation run (`<out>/validate/<id>/`), judged against the
 * registry (src/features/audit/). Reports in `<out>/audit/<id>/`. A pack is verified and imported into a
 * scratch directory first (src/features/pack/, nothing in it runs but the tasks' own commands, as in any run)
 * and removed afterwards. Exit 0 when everything conforms, 1 on a departure or instability, 2 on bad input.
 */
export async function auditCommand(input: string, opts: AuditCommandOptions, io: CliIo): Promise<void> {
  const runs = wholeNumber('--runs', opts.runs, 3, 1, MAX_PLANNED_ATTEMPTS);
  const concurrency = wholeNumber('--concurrency', opts.concurrency, defaultConcurrency());
  writableStateDir('--out', opts.out, io.cwd);
  if (!isPackArgument(input)) return audit(input, undefined, opts, runs, concurrency, io);
  const scratch = await mkdtemp(join(tmpdir(), 'crucible-audit-'));
  try {
    const pack = await openPack(input, join(scratch, 'pack'), opts.trust);
    await audit(pack.tasksetPath, { archive: input, pack }, opts, runs, concurrency, io);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function openPack(archive: string, dest: string, trustFile: string | undefined): Promise<ImportedPack> {
  const trust = trustFile !== undefined ? loadTrustPolicy(trustFile) : undefined;
  try {
    return await importPack(archive, dest, trust ? { trust } : {});
  } catch (error) {
    // Which input failed matters more than where: the message names the archive in both cases.
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PackVerificationError) throw new PackVerificationError(`cannot import pack ${archive}: ${message}`);
    if (error instanceof InputError) throw new InputError(`cannot import pack ${archive}: ${message}`);
    throw new Error(`cannot import pack ${archive}: ${message}`, { cause: error });
  }
}

async function audit(
  tasksetPath: string,
  from: { archive: string; pack: ImportedPack } | undefined,
  opts: AuditCommandOptions,
  runs: number,
  concurrency: number,
  io: CliIo,
): Promise<void> {
  const taskSet = loadRunInput(tasksetPath);
  const registryFile = opts.registry ?? findRegistry(tasksetPath);
  const registry: Registry = registryFile
    ? loadRegistry(registryFile, taskSet.tasks)
    : defaultRegistry(from ? basename(from.archive).replace(/(\.crucible)?\.zip$/i, '') : basename(tasksetPath, extname(tasksetPath)), taskSet.tasks);
  const selected = withFlagNames(() => selectTasks(taskSet.tasks, { taskIds: opts.task }, tasksetPath));
  const familyOf = new Map(registry.families.flatMap((f) => f.taskIds.map((id) => [id, f] as const)));
  const outside = opts.task?.find((id) => !familyOf.has(id));
  if (outside !== undefined)
    throw new InputError(`--task ${outside}: in no family of ${registryFile ?? 'the registry'} (fix: add it to a family's tasks, or leave it out)`);
  const tasks = selected.filter((t) => familyOf.has(t.id));
  if (registry.unregistered.length > 0 && opts.task === undefined)
    io.stderr.write(`${pc.yellow('warning')} not in any family, not audited: ${registry.unregistered.join(', ')}\n`);
  // oracle and nop first, then the other reference agents in the order the registry names them.
  const agents = [...new Set(tasks.flatMap((t) => Object.keys(familyOf.get(t.id)?.contract ?? {})))];
  const sandbox = await chooseSandbox(io, opts.sandbox, agents);

  const { outcome, results } = await runValidationIn(io, {
    taskSet,
    tasks,
    selection: { taskIds: tasks.map((t) => t.id) },
    agents,
    trials: runs,
    only: (taskId, agent) => familyOf.get(taskId)?.contract[agent] !== undefined,
    stateDir: opts.out,
    // Graded as `crucible run` grades (baseline from the preflight), so a contract holds for real runs.
    settings: { sandbox, baselineTests: true },
    concurrency,
  });
  const aborted = outcome.summary.ended === 'interrupted';
  const families = judgeAudit(registry, results, runs, new Set(tasks.map((t) => t.id)));
  const report: AuditReport = {
    schemaVersion: AUDIT_SCHEMA_VERSION,
    id: basename(outcome.runDir),
    registry: { name: registry.name, version: registry.version, file: registryFile ? shown(registryFile, io) : null },
    taskSet: from ? from.pack.taskset : shown(taskSet.file, io),
    ...(from ? { pack: { archive: from.archive, archiveDigest: from.pack.archiveDigest, rootDigest: from.pack.rootDigest } } : {}),
    runs,
    runDir: relative(resolve(opts.out), outcome.runDir),
    conform: families.every((f) => f.conform) && !aborted,
    families,
    unregistered: registry.unregistered,
    taskErrors: outcome.taskErrors.map((e) => ({ taskId: e.taskId, defects: e.defects.map((d) => ({ field: d.field, problem: d.problem, fix: d.fix })) })),
  };
  const dir = await writeAuditReport(opts.out, report);
  if (opts.json) io.stdout.write(`${JSON.stringify({ ...report, dir: shown(dir, io) }, null, 2)}\n`);
  else {
    io.stdout.write(`\n${formatAudit(families)}\n`);
    if (outcome.taskErrors.length > 0) io.stdout.write(`\n${formatTaskErrors(outcome.taskErrors)}\n`);
    const departing = families.reduce((n, f) => n + f.departing, 0);
    const unstable = families.reduce((n, f) => n + f.unstable, 0);
    const total = families.reduce((n, f) => n + f.tasks.length, 0);
    const head = report.conform
      ? pc.green(`all ${total} tasks conform to ${registry.name} ${registry.version}`)
      : pc.red(`${departing} of ${total} tasks depart from the contract, ${unstable} unstable`);
    io.stdout.write(`\n${head}  ${pc.dim(`report in ${shown(dir, io)}`)}\n`);
  }
  exitWith(runExitCode({ interrupted: aborted, taskErrors: 0, passed: report.conform }));
}

function shown(path: string, io: CliIo): string {
  return relative(io.cwd, path) || path;
}

export function formatAudit(families: FamilyAudit[]): string {
  const label = (s: ReturnType<typeof agentStatus>): string => (s === 'conform' ? pc.green(s) : s === 'unstable' ? pc.yellow(s) : pc.red(s));
  const rows = families.flatMap((f) =>
    f.tasks.flatMap((t) =>
      t.agents.map((a) => [
        label(agentStatus(a)),
        f.id,
        t.taskId,
        a.agent,
        describeContract(a.expected),
        a.outcomes.map((o) => describeOutcome(o, a.trials)).join('; ') || '-',
        a.departures.map(describeDeparture).join('; ') || pc.dim('-'),
      ]),
    ),
  );
  return table(['status', 'family', 'task', 'agent', 'expected', 'seen', 'departures'], rows);
}
