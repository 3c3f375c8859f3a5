import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import pc from 'picocolors';
import { isProfileSpec, loadAgentCatalog, splitProfileSpec } from '../../domain/agents/index.js';
import { agentCacheDir, installedVersion, resolveProgram, type AgentProfile } from '../../domain/agents/index.js';
import { loadTaskSet } from '../../domain/config/index.js';
import { executeRun, type RunOutcome } from '../../engine/index.js';
import { InputError } from '../../core/errors.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import { selectTasks } from '../../domain/tasks/index.js';
import type { AttemptResult } from '../../core/types/index.js';
import { writableStateDir } from '../args.js';
import { bundledExamplesDir } from '../bundled-examples.js';
import { table } from '../format.js';
import { modelRunOptions } from '../model-run.js';
import { withFlagNames } from '../option-flags.js';
import { createProgress } from '../progress.js';
import { chooseSandbox } from '../sandbox-choice.js';
import type { CliIo } from '../io.js';
import { EXIT, exitWith } from '../exit.js';

interface CatalogOptions {
  agents?: string;
  out: string;
}

/** `crucible agents list`: every profile a run could choose, and whether its program is ready. */
export function agentsListCommand(opts: CatalogOptions & { json?: boolean }, io: CliIo): void {
  const { profiles, overrides } = loadAgentCatalog({ agentsFile: opts.agents });
  const cacheDir = agentCacheDir(opts.out);
  const rows = [...profiles.values()].map((p) => ({
    name: p.name,
    program: p.package ?? p.commandPath ?? '',
    model: p.model ?? null,
    protocol: p.protocol.kind,
    installed: installedState(p, cacheDir),
    source: p.source,
    overrides: overrides.get(p.name) ?? [],
  }));
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ cacheDir, agents: rows }, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    io.stdout.write(`no agent profiles (fix: pass --agents FILE; see docs/agents.md)\n`);
    return;
  }
  const shown = rows.map((r) => [
    r.name,
    r.program,
    r.model ?? '-',
    r.protocol,
    r.installed ?? pc.dim('not installed'),
    r.overrides.length > 0 ? `${display(r.source, io)} (overrides ${r.overrides.map((o) => display(o, io)).join(', ')})` : display(r.source, io),
  ]);
  io.stdout.write(`${table(['agent', 'package / program', 'default model', 'protocol', 'installed', 'source'], shown)}\n`);
  io.stdout.write(pc.dim(`agent cache: ${cacheDir}; later sources override earlier ones by name: builtin, the task set's agents:, --agents FILE\n`));
}

/** The installed version, `host` for a command_path that is there, undefined when not ready. */
function installedState(profile: AgentProfile, cacheDir: string): string | undefined {
  if (profile.commandPath !== undefined) return existsSync(profile.commandPath) ? 'host' : undefined;
  return installedVersion(profile, cacheDir);
}

/** `crucible agents install NAME… [--all]`: installs the packages now, so runs do not wait. */
export async function agentsInstallCommand(names: string[], opts: CatalogOptions & { all?: boolean }, io: CliIo): Promise<void> {
  const { profiles } = loadAgentCatalog({ agentsFile: opts.agents });
  if (names.length === 0 && !opts.all)
    throw new InputError(`agents install: no agent named (fix: name one of ${[...profiles.keys()].join(', ')}, or add --all)`);
  if (names.length > 0 && opts.all) throw new InputError('agents install: names and --all together (fix: drop one)');
  const chosen = opts.all ? [...profiles.values()] : names.map((n) => profileOf(n, profiles));
  writableStateDir('--out', opts.out, io.cwd);
  const cacheDir = agentCacheDir(opts.out);
  for (const profile of chosen) {
    const before = installedVersion(profile, cacheDir);
    const program = await resolveProgram(profile, { cacheDir, install: true, onProgress: (line) => io.stderr.write(`${line}\n`) });
    const what =
      profile.package !== undefined ? `${profile.package} ${before !== undefined ? 'already installed' : 'installed'}` : 'uses a program on this host';
    io.stdout.write(`${pc.green('ok')} ${profile.name}: ${what} (${program.argv0})\n`);
  }
}

function profileOf(name: string, profiles: ReadonlyMap<string, AgentProfile>): AgentProfile {
  const profile = profiles.get(name);
  if (!profile) throw new InputError(`${name}: no such agent profile (fix: use one of ${[...profiles.keys()].join(', ') || 'none; pass --agents FILE'})`);
  return profile;
}

/** The task `agents check` runs: small, quick to grade, and bundled with Crucible. */
export const CHECK_TASK = 'js-slugify';

/**
 * `crucible agents check NAME[:model]`: one attempt of the bundled task, through the same run a
 * `crucible run` makes, and one line per problem found. Exit 0 when it passed, 1 when it ran but
 * did not pass, 2 for bad input (a missing key, an unknown agent).
 */
export async function agentsCheckCommand(spec: string, opts: CatalogOptions & { replay?: string; sandbox?: SandboxKind }, io: CliIo): Promise<void> {
  const { profiles } = loadAgentCatalog({ agentsFile: opts.agents });
  if (!isProfileSpec(spec, profiles)) {
    throw new InputError(`agents check ${spec}: not an agent profile (fix: use one of ${[...profiles.keys()].join(', ')}, optionally with :<model>)`);
  }
  const examples = bundledExamples(io);
  const taskSet = loadTaskSet(examples);
  const tasks = selectTasks(taskSet.tasks, { taskIds: [CHECK_TASK] }, examples);
  // The run's own checks: a missing API key names its variable here (exit 2), before anything starts.
  const models = modelRunOptions({ ...(opts.replay !== undefined ? { replay: opts.replay } : {}) }, [spec], profiles);
  writableStateDir('--out', opts.out, io.cwd);
  const profile = profiles.get(splitProfileSpec(spec).name) as AgentProfile;
  await resolveProgram(profile, { cacheDir: agentCacheDir(opts.out), install: true, onProgress: (line) => io.stderr.write(`${line}\n`) });
  const sandbox = await chooseSandbox(io, opts.sandbox, [spec]);
  const progress = createProgress({ stream: io.stderr });
  let outcome: RunOutcome;
  try {
    outcome = await withFlagNames(() =>
      executeRun({
        taskSetFile: examples,
        tasks,
        agents: [spec],
        profiles,
        trials: 1,
        concurrency: 1,
        stateDir: opts.out,
        settings: { sandbox },
        ...(models ? { models } : {}),
        observer: progress,
      }),
    );
  } finally {
    progress.close();
  }
  const attempt = outcome.attempts[0];
  const lines = attempt ? diagnose(attempt) : [`${pc.red('problem')} the attempt did not run (the run ended ${outcome.summary.ended})`];
  io.stdout.write(`${lines.join('\n')}\n${pc.dim(`evidence: crucible show ${attempt?.attemptId ?? outcome.summary.runId} (in ${outcome.runDir})`)}\n`);
  exitWith(attempt?.verdict === 'PASS' ? EXIT.ok : EXIT.failed);
}

/** One line per problem the attempt shows, then the verdict; exported for tests. */
export function diagnose(a: AttemptResult): string[] {
  const problems: string[] = [];
  const r = a.agentResult;
  if (a.harnessError) problems.push(`Crucible failed while the agent ran (${a.harnessError.phase}): ${oneLine(a.harnessError.message)}`);
  else if (r?.stopReason === 'error') problems.push(`the agent crashed or refused: ${oneLine(r.error ?? 'no message')}`);
  else if (r?.stopReason === 'timeout') problems.push("the agent ran out of time (raise the task's agent_timeout, or check that it runs non-interactively)");
  else if (r?.stopReason === 'budget_exceeded') problems.push('the agent hit the token or cost budget');
  if (a.cause === 'task_error') problems.push(`the bundled task is broken: ${oneLine(a.message)}`);
  // An agent that crashed or never ran made no edits as a matter of course: that line would add nothing.
  else if ((a.diff?.filesChanged ?? 0) === 0 && problems.length === 0)
    problems.push('the agent made no edits (empty diff): it may not have understood the prompt, or could not write files');
  const verdict = `${a.verdict === 'PASS' ? pc.green('OK') : pc.red('verdict')} ${a.verdict} (${a.cause}): ${oneLine(a.message)}`;
  return [...problems.map((p) => `${pc.red('problem')} ${p}`), verdict];
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' | ').trim();
  return flat.length > 400 ? `…${flat.slice(-400)}` : flat;
}

/** examples/tasks.yaml beside profiles/ at the package root. */
function bundledExamples(io: CliIo): string {
  return display(join(bundledExamplesDir(), 'tasks.yaml'), io);
}

function display(file: string, io: CliIo): string {
  if (file === 'builtin') return file;
  const rel = relative(io.cwd, file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}
