import { capped, fail, listShort, pass, type Check } from './types.js';

/**
 * Changes outside the workspace seen by the filesystem guard. Under bwrap such writes fail before
 * they happen (unsafe_commands records the attempt); under `--sandbox local` this is what the
 * harness can still see: the attempt and results directories, the task-set directory and a local
 * repo source.
 */
export const outsideWritesCheck: Check = {
  id: 'outside_writes',
  description: 'nothing outside the workspace changed where the harness watches',
  run(input) {
    const guard = input.outsideWrites;
    if (!guard) return pass('not watched', { skipped: true });
    const evidence = { enforcedBySandbox: input.sandboxEnforcesFs, watched: guard.watched, writes: capped(guard.writes), complete: guard.complete };
    if (guard.writes.length > 0) return fail(`changed outside the workspace: ${listShort(guard.writes.map((w) => `${w.kind} ${w.path}`))}`, evidence);
    if (input.sandboxEnforcesFs) return pass('the sandbox makes writes outside the workspace fail', evidence);
    return pass(guard.complete ? 'no change outside the workspace where watched' : 'no change seen (watched trees too large to check completely)', evidence);
  },
};
