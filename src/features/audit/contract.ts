import { UNSCORED_CAUSES, type Cause, type CheckId, type Verdict } from '../../core/types/index.js';

/** What one reference agent must produce on a task, in every trial. */
export interface AgentContract {
  verdict: Verdict;
  /** Undefined: any cause goes with the verdict. */
  cause?: Cause;
  /** Checks that must pass, or `all` (every registered check). */
  mustPass: CheckId[] | 'all';
  /** Checks that must fail. */
  mustFail: CheckId[];
}

/** Reference agent name → its contract, in the order the registry (or the default) lists them. */
export type Contract = Readonly<Record<string, AgentContract>>;

/**
 * The contract every family gets for the agents its registry entry does not name. `oracle` applies
 * the known fix and trips no check. `nop` changes nothing: `tests` fails (the fail-to-pass tests
 * still fail) and so does `no_changes`, whose default severity is `error` and whose cause comes
 * before `tests_failed` in grading's precedence (docs/grading.md), so nop's cause is `no_changes`.
 */
export const DEFAULT_CONTRACT: Contract = {
  oracle: { verdict: 'PASS', cause: 'passed', mustPass: 'all', mustFail: [] },
  nop: { verdict: 'FAIL', cause: 'no_changes', mustPass: [], mustFail: ['tests', 'no_changes'] },
};

/** Why a contract cannot be met by any attempt (grading never gives that verdict with that cause), or undefined. */
export function contractConflict(c: AgentContract): string | undefined {
  if (c.cause !== undefined) {
    if ((c.verdict === 'PASS') !== (c.cause === 'passed')) return `verdict ${c.verdict} never comes with cause ${c.cause}`;
    const unscored = UNSCORED_CAUSES.has(c.cause);
    if ((c.verdict === 'ERROR') !== unscored) return `verdict ${c.verdict} never comes with cause ${c.cause}`;
  }
  const both = c.mustPass === 'all' ? c.mustFail[0] : c.mustFail.find((id) => (c.mustPass as CheckId[]).includes(id));
  if (both !== undefined)
    return c.mustPass === 'all' ? `must_pass: all and must_fail: [${c.mustFail.join(', ')}] contradict` : `check ${both} cannot both pass and fail`;
  return undefined;
}
