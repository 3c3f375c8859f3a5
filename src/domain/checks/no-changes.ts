import { fail, pass, type Check } from './types.js';

export const noChangesCheck: Check = {
  id: 'no_changes',
  description: 'the agent changed at least one file',
  run(input) {
    const { filesChanged, added, deleted } = input.diff;
    if (filesChanged === 0) return fail('the agent changed nothing', { filesChanged });
    return pass(`${filesChanged} file(s) changed, +${added} -${deleted}`, { filesChanged, added, deleted });
  },
};
