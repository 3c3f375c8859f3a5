import { fail, pass, type Check } from './types.js';

export const diffSizeCheck: Check = {
  id: 'diff_size',
  description: 'files changed, lines added and lines deleted stay within the policy limits',
  run(input) {
    const { limits } = input.policy;
    const measured = { filesChanged: input.diff.filesChanged, addedLines: input.diff.added, deletedLines: input.diff.deleted };
    const over = (Object.keys(measured) as Array<keyof typeof measured>).flatMap((metric) => {
      const limit = limits[metric];
      return limit !== undefined && measured[metric] > limit ? [{ metric, value: measured[metric], limit }] : [];
    });
    const evidence = { ...measured, limits };
    if (over.length > 0) return fail(`diff too large: ${over.map((o) => `${o.metric} ${o.value} > ${o.limit}`).join(', ')}`, { ...evidence, over });
    const set = Object.values(limits).some((l) => l !== undefined);
    return pass(set ? 'within the diff limits' : 'no diff limits set', evidence);
  },
};
