import { describe, expect, it } from 'vitest';
import { UNSCORED_SQL } from '../../src/infra/store/aggregates.js';
import { UNSCORED_CAUSES } from '../../src/core/types/index.js';

describe("the history's pass-rate tally", () => {
  it('leaves out exactly the causes the run statistics leave out', () => {
    const listed = [...UNSCORED_SQL.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(UNSCORED_CAUSES));
  });
});
