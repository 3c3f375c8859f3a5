/**
 * Time limits for end-to-end tests, from the work they do rather than a guess at one machine's
 * speed. An attempt on the bundled examples takes 0.5–3 s on an idle 2-core VM; the allowance is
 * ten times that, for a loaded CI machine, and it assumes no parallelism (a loaded machine gives
 * none). A test that runs n attempts gets START_MS + n × PER_ATTEMPT_MS; a hung run still ends,
 * because crucible() kills the CLI at the same budget.
 */
export const PER_ATTEMPT_MS = 30_000;
const START_MS = 30_000;

export function attemptBudget(attempts: number): number {
  return START_MS + attempts * PER_ATTEMPT_MS;
}
