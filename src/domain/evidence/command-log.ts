import { createHash } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import type { ExecLimitName, ExecRequest, ExecResult, Executor } from '../../infra/sandbox/index.js';

/** One line of `commands.jsonl`. Environment values are never logged: only variable names. */
export interface CommandEvent {
  at: string;
  argv: string[];
  cwd: string;
  envNames: string[];
  network: ExecRequest['network'];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
  /** The sandbox limit the command hit, if it hit one. */
  limitExceeded?: ExecLimitName;
  /** SHA-256 of what it printed (stdout, a NUL, stderr, as captured): ties the log to the output without keeping it. */
  outputSha256?: string;
  /**
   * `agent`: not observed by the harness but reported by the agent (a CLI agent's own tool ran it
   * inside the program the harness ran); its argv is `sh -c <command line>` and its timing unknown.
   */
  reportedBy?: 'agent';
}

/** A command an agent says it ran inside its own process. */
export interface ReportedCommandInput {
  command: string;
  exitCode?: number | null;
}

/**
 * Wraps an executor so every command the agent runs is appended to `file` as it finishes; the
 * policy checks read this log rather than anything the agent reports about itself (what a CLI
 * agent reports its own tools ran is added by `report`, marked `reportedBy: 'agent'`). When `phase`
 * aborts, commands still running are killed and later ones throw.
 */
export function recordingExecutor(
  inner: Executor,
  file: string,
  phase?: AbortSignal,
): Executor & { events(): CommandEvent[]; report(commands: readonly ReportedCommandInput[], cwd: string): void } {
  const events: CommandEvent[] = [];
  let writes: Promise<void> = Promise.resolve();
  const append = (event: CommandEvent): Promise<void> => {
    events.push(event);
    // Appends are chained so lines never interleave when an agent runs commands in parallel.
    // A failed append must not poison the chain: the in-memory log the checks read is complete
    // either way, and commands.jsonl is its copy on disk.
    writes = writes.then(() => appendFile(file, `${JSON.stringify(event)}\n`)).catch(() => undefined);
    return writes;
  };
  return {
    kind: inner.kind,
    capabilities: inner.capabilities,
    close: () => inner.close(),
    ...(inner.containerImageId ? { containerImageId: () => inner.containerImageId?.() } : {}),
    events: () => events,
    report(commands, cwd) {
      const at = new Date().toISOString();
      for (const c of commands) {
        void append({
          at,
          argv: ['sh', '-c', c.command],
          cwd,
          envNames: [],
          network: 'gateway',
          exitCode: c.exitCode ?? null,
          signal: null,
          timedOut: false,
          truncated: false,
          durationMs: 0,
          reportedBy: 'agent',
        });
      }
    },
    async exec(req: ExecRequest): Promise<ExecResult> {
      // Once the phase is over (the agent stopped or timed out) nothing more may touch the
      // workspace: running commands are killed with it and new ones refused.
      if (phase?.aborted) throw new Error('the agent phase has ended: no more commands may run');
      const signal = phase && req.signal ? AbortSignal.any([req.signal, phase]) : (phase ?? req.signal);
      const started = Date.now();
      let result: ExecResult | undefined;
      try {
        result = await inner.exec({ ...req, signal });
        return result;
      } finally {
        const event: CommandEvent = {
          at: new Date(started).toISOString(),
          argv: req.argv,
          cwd: req.cwd,
          envNames: Object.keys(req.env ?? {}).sort(),
          network: req.network,
          exitCode: result?.exitCode ?? null,
          signal: result?.signal ?? null,
          timedOut: result?.timedOut ?? false,
          truncated: result?.truncated ?? false,
          durationMs: result?.durationMs ?? Date.now() - started,
          ...(result?.limitExceeded ? { limitExceeded: result.limitExceeded } : {}),
          ...(result ? { outputSha256: createHash('sha256').update(result.stdout).update('\0').update(result.stderr).digest('hex') } : {}),
        };
        await append(event);
      }
    },
  };
}
