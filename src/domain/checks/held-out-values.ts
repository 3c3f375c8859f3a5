import { capped, fail, listShort, pass, type Check } from './types.js';

/**
 * Held-out values (`held_out_values:`): every declared call of the function under test returned a
 * value equal to the one the task expects, as the harness compared it outside the test process
 * (evidence/held-out-values.ts). Severity `info` unless the task requires them (the default). A
 * value the runner refused as a lie fails here too, and is judged as tampering by runner_reach.
 */
export const heldOutValuesCheck: Check = {
  id: 'held_out_values',
  description: 'held-out calls of the function under test return what the task expects, compared by the harness',
  run(input) {
    const spec = input.task.heldOutValues;
    if (!spec) return pass('no held-out values', { skipped: true });
    const run = input.heldOutValues;
    if (!run) return fail('the held-out values did not run', { required: spec.required });
    const wrong = run.results.filter((r) => r.outcome !== 'equal');
    const equal = run.results.length - wrong.length;
    const evidence = {
      required: spec.required,
      equal,
      total: run.results.length,
      wrong: capped(wrong),
      ...(run.timedOut ? { timedOut: true } : {}),
      ...(run.limitExceeded ? { limitExceeded: run.limitExceeded } : {}),
    };
    if (wrong.length > 0)
      return fail(
        `held_out_values ${equal}/${run.results.length}: ${listShort(wrong.map((r) => `${r.call} ${r.outcome === 'differs' ? `returned ${r.detail}` : r.detail}`))}`,
        evidence,
      );
    return pass(`held_out_values ${equal}/${run.results.length}`, evidence);
  },
};
