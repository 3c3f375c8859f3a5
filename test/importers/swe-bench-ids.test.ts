import { describe, expect, it } from 'vitest';
import { unmatchableIds } from '../../src/features/importers/swe-bench-ids.js';

describe('unmatchableIds', () => {
  it('finds absolute paths, cut-off parameters and duplicates; leaves good ids alone', () => {
    const f2p = ['tests/test_a.py::test_fix', 'tests/test_a.py::test_fix'];
    const p2p = [
      'tests/test_a.py::test_ok[1-2]',
      '/home/author/repo/tests/test_a.py::test_ok',
      'tests/test_unpack.py::test_unpack[',
      'tests/test_a.py::test_fix',
    ];
    expect(unmatchableIds(f2p, p2p)).toEqual([
      { field: 'FAIL_TO_PASS', id: 'tests/test_a.py::test_fix', problem: 'is listed twice in FAIL_TO_PASS' },
      { field: 'PASS_TO_PASS', id: '/home/author/repo/tests/test_a.py::test_ok', problem: expect.stringMatching(/^is an absolute path/) },
      { field: 'PASS_TO_PASS', id: 'tests/test_unpack.py::test_unpack[', problem: 'is cut off inside its parameters (no closing ])' },
      { field: 'PASS_TO_PASS', id: 'tests/test_a.py::test_fix', problem: 'is in FAIL_TO_PASS too' },
    ]);
    expect(unmatchableIds(['t.py::a'], ['t.py::b[x]'])).toEqual([]);
  });
});
