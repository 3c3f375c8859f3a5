/**
 * One attempt's online guard: the filesystem watcher over the agent's workspace and the command
 * guard around its executor, judged by the post-hoc checks' own rules. `audit` records; `enforce`
 * refuses unsafe commands and, on a blocking filesystem finding, aborts the agent's phase (its
 * executor then kills every process it started). The post-hoc checks and grading run unchanged.
 */
import { effectivePolicy } from '../checks/index.js';
import type { WriteRoots } from '../checks/index.js';
import type { Executor } from '../../infra/sandbox/index.js';
import type { Task } from '../../core/types/index.js';
import { git, type GitTarget } from '../../infra/workspace/index.js';
import { commandRules, guardExecutor } from './command-guard.js';
import { writeIncident } from './incident.js';
import { pathRules, type PathVerdict } from './path-rules.js';
import { redactArgv } from '../../core/redact/index.js';
import type { GuardFinding, GuardMode, GuardSummary } from './types.js';
import { watchTree, type TreeEvent, type TreeWatcher } from './watcher.js';

export interface GuardInput {
  mode: GuardMode;
  task: Pick<Task, 'policy' | 'tests' | 'heldOut'>;
  workspace: string;
  attemptDir: string;
  /** Where the agent may write: the same roots the post-hoc unsafe_commands check uses. */
  writeRoots: WriteRoots;
  /**
   * The baseline's git directory with a tree of the baseline (the pristine copy): which paths git
   * ignores is read from there, never from the workspace the agent can edit. Ignored paths are not
   * part of the change the checks judge, so the guard does not judge them either.
   */
  ignoreTarget?: GitTarget;
  /** Aborted to stop the agent (enforce, on a blocking filesystem finding). */
  controller: AbortController;
  /** Force the polling watcher (tests; machines without inotify fall back by themselves). */
  poll?: boolean;
  pollIntervalMs?: number;
}

export interface GuardSession {
  readonly mode: GuardMode;
  /** The agent's executor with the command guard in front of it. */
  executor(inner: Executor): Executor;
  /** Commands a CLI agent reports it ran inside its own process: judged after the fact. */
  reported(commands: ReadonlyArray<{ command: string }>, cwd: string): void;
  /** Resolves when enforce stopped the agent, with the finding that did it. */
  readonly stopped: Promise<GuardFinding>;
  /** Stops watching (after one last read of the tree) and writes incident.json when anything was found. */
  finish(): Promise<GuardSummary>;
}

/** Names never judged: the workspace's own git directory (not part of any change). */
const NOT_WATCHED = ['.git'];

export async function startGuard(input: GuardInput): Promise<GuardSession> {
  const { mode, controller } = input;
  const policy = effectivePolicy(input.task);
  const rules = pathRules(policy);
  const checkCommand = commandRules(policy, input.writeRoots);
  const findings: GuardFinding[] = [];
  const judged = new Set<string>();
  const changed = new Set<string>();
  let stopFinding: GuardFinding | undefined;
  let resolveStopped: (finding: GuardFinding) => void = () => undefined;
  const stopped = new Promise<GuardFinding>((resolveStop) => {
    resolveStopped = resolveStop;
  });

  // Host paths never reach the incident bundle.
  const sanitize = (text: string): string => text.split(input.workspace).join('<workspace>').split(input.attemptDir).join('<attempt>');

  const record = (finding: Omit<GuardFinding, 'action' | 'at'>, fsViolation: boolean): GuardFinding => {
    const enforcing = mode === 'enforce' && finding.blocking;
    const action: GuardFinding['action'] = !enforcing ? 'audit_only' : fsViolation ? 'stopped' : 'blocked';
    const full: GuardFinding = { ...finding, detectionMs: Math.max(0, Math.round(finding.detectionMs)), action, at: new Date().toISOString() };
    findings.push(full);
    if (action === 'stopped' && !stopFinding) {
      stopFinding = full;
      controller.abort();
      resolveStopped(full);
    }
    return full;
  };

  // Events are judged in batches: one `git check-ignore` call per batch, in arrival order.
  let queue: TreeEvent[] = [];
  let draining: Promise<void> = Promise.resolve();
  // Events can arrive while the watcher still reads the tree: judging waits until it knows what was there.
  let resolveReady: (w: TreeWatcher) => void = () => undefined;
  const ready = new Promise<TreeWatcher>((r) => {
    resolveReady = r;
  });
  const drain = async (): Promise<void> => {
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    const { initial } = await ready;
    // Git is asked only about paths a rule could judge (all of them when changed files are counted).
    const counting = policy.limits.filesChanged !== undefined;
    const asked = batch.filter((e) => counting || rules.judge(e, initial.has(e.path)).length > 0).map((e) => e.path);
    const ignored = await ignoredPaths(input.ignoreTarget, [...new Set(asked)]);
    for (const event of batch) {
      if (ignored.has(event.path) && event.entry !== 'symlink') continue;
      const existed = initial.has(event.path);
      if (event.entry !== 'dir') {
        if (event.kind === 'write' || existed) changed.add(event.path);
        else changed.delete(event.path);
      }
      const verdicts: PathVerdict[] = rules.judge(event, existed);
      const count = rules.changedFiles(changed.size);
      if (count) verdicts.push(count);
      for (const v of verdicts) {
        const key = v.rule === 'file_count' ? v.rule : `${v.rule}\0${event.path}`;
        if (judged.has(key)) continue;
        judged.add(key);
        record(
          {
            rule: v.rule,
            ...(v.check ? { check: v.check } : {}),
            ...(v.rule === 'file_count' ? {} : { path: event.path }),
            detail: sanitize(v.detail),
            blocking: v.blocking,
            detectionMs: Date.now() - event.changedAtMs,
          },
          true,
        );
      }
    }
  };
  const onEvent = (event: TreeEvent): void => {
    queue.push(event);
    if (queue.length === 1)
      draining = draining
        .then(() => new Promise<void>((r) => setImmediate(r)))
        .then(drain)
        .catch(() => undefined);
  };

  const watcher = await watchTree(input.workspace, {
    ignore: NOT_WATCHED,
    ...(input.poll ? { poll: true } : {}),
    ...(input.pollIntervalMs ? { pollIntervalMs: input.pollIntervalMs } : {}),
    onEvent,
  });
  resolveReady(watcher);
  const watchMode = watcher.mode;

  return {
    mode,
    stopped,
    executor(inner) {
      return guardExecutor(inner, {
        check: checkCommand,
        onHits(req, hits, requestedAtMs) {
          let refuse = false;
          for (const hit of hits) {
            const finding = record(
              {
                rule: 'unsafe_command',
                check: 'unsafe_commands',
                argv: redactArgv(req.argv).map(sanitize),
                detail: sanitize(`${hit.rule}: ${hit.detail}`),
                blocking: hit.blocking,
                detectionMs: Date.now() - requestedAtMs,
              },
              false,
            );
            if (finding.action === 'blocked') refuse = true;
          }
          return refuse;
        },
      });
    },
    reported(commands, cwd) {
      const at = Date.now();
      for (const c of commands) {
        const argv = ['sh', '-c', c.command];
        for (const hit of checkCommand(argv, cwd)) {
          // It already ran inside the agent's program: enforce can only stop the agent now.
          record(
            {
              rule: 'unsafe_command',
              check: 'unsafe_commands',
              argv: redactArgv(argv).map(sanitize),
              detail: sanitize(`${hit.rule}: ${hit.detail}`),
              blocking: hit.blocking,
              detectionMs: Date.now() - at,
              reportedBy: 'agent',
            },
            true,
          );
        }
      }
    },
    async finish() {
      await watcher.close();
      await draining;
      await drain();
      const summary = summarize(mode, watchMode, findings, stopFinding !== undefined);
      if (findings.length === 0) return summary;
      await writeIncident(input.attemptDir, { mode, watcher: watchMode, complete: watcher.complete(), findings, stopped: stopFinding });
      return { ...summary, incidentFile: 'incident.json' };
    },
  };
}

function summarize(mode: GuardMode, watcher: GuardSummary['watcher'], findings: readonly GuardFinding[], stopped: boolean): GuardSummary {
  const times = findings.map((f) => f.detectionMs);
  return {
    mode,
    watcher,
    incidents: findings.length,
    blocked: findings.filter((f) => f.action === 'blocked').length,
    stopped,
    auditOnly: findings.filter((f) => f.action === 'audit_only').length,
    ...(times.length > 0 ? { detectionMs: { min: Math.min(...times), max: Math.max(...times) } } : {}),
  };
}

/** The paths git ignores by the baseline's rules; none when there is no baseline to ask. */
async function ignoredPaths(target: GitTarget | undefined, paths: readonly string[]): Promise<Set<string>> {
  if (!target || paths.length === 0) return new Set();
  try {
    const out = await git(target, ['check-ignore', '-z', '--stdin'], { stdin: `${paths.join('\0')}\0` });
    return new Set(out.split('\0').filter((p) => p !== ''));
  } catch {
    // Exit 1 means "none ignored"; any other failure leaves every path judged (never a blind spot).
    return new Set();
  }
}
