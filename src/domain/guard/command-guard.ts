/**
 * The command guard: every command the agent asks the executor to run is read by the
 * unsafe-command rules (checks/unsafe-command-rules.ts, the rules the post-hoc unsafe_commands
 * check applies, as the task's policy selects them) before it runs. It sits inside the command
 * log (evidence/command-log.ts), so a refused command is still recorded, and still judged
 * afterwards: trying is the finding.
 */
import { UNSAFE_RULES, userRule, type UnsafeRule, type WriteRoots } from '../checks/index.js';
import type { EffectivePolicy } from '../checks/index.js';
import { BLOCKING } from '../grading/index.js';
import type { ExecRequest, ExecResult, Executor } from '../../infra/sandbox/index.js';

/** The exit code a refused command returns (like a shell's "cannot execute"). */
export const REFUSED_EXIT_CODE = 126;

export interface CommandHit {
  rule: string;
  detail: string;
  blocking: boolean;
}

/** The rules the policy puts in force, as the post-hoc check builds them. */
export function commandRules(policy: EffectivePolicy, roots: WriteRoots): (argv: readonly string[], cwd: string) => CommandHit[] {
  const rules: UnsafeRule[] = [
    ...policy.unsafeRules.flatMap((id) => (UNSAFE_RULES[id] ? [UNSAFE_RULES[id]] : [])),
    ...policy.unsafePatterns.map((p, i) => userRule(p, i)),
  ];
  const blocking = BLOCKING.has(policy.severities.unsafe_commands);
  return (argv, cwd) =>
    rules.flatMap((rule) => {
      const detail = rule.test(argv, cwd, roots);
      return detail === undefined ? [] : [{ rule: rule.id, detail, blocking }];
    });
}

export interface CommandGuardHooks {
  /** Judges a command; the hits, empty when it is fine. */
  check(argv: readonly string[], cwd: string): CommandHit[];
  /** Told of each command with hits, before it runs; returns true to refuse it. */
  onHits(req: ExecRequest, hits: CommandHit[], requestedAtMs: number): boolean;
}

/** Wraps an executor so each command is judged before it runs and, when `onHits` says so, refused. */
export function guardExecutor(inner: Executor, hooks: CommandGuardHooks): Executor {
  return {
    kind: inner.kind,
    capabilities: inner.capabilities,
    close: () => inner.close(),
    ...(inner.containerImageId ? { containerImageId: () => inner.containerImageId?.() } : {}),
    async exec(req: ExecRequest): Promise<ExecResult> {
      const requestedAtMs = Date.now();
      const hits = hooks.check(req.argv, req.cwd);
      if (hits.length > 0 && hooks.onHits(req, hits, requestedAtMs)) {
        const rules = hits.map((h) => `${h.rule} (${h.detail})`).join(', ');
        return {
          exitCode: REFUSED_EXIT_CODE,
          signal: null,
          stdout: '',
          stderr: `crucible guard: command refused before it ran: unsafe command rule ${rules}. The online guard is in enforce mode; this attempt records the refusal.\n`,
          truncated: false,
          timedOut: false,
          durationMs: 0,
        };
      }
      return inner.exec(req);
    },
  };
}
