/**
 * The failure count test runners print at the end of their own output. The JUnit report is a file
 * that code under test can rewrite after the runner wrote it; the runner's summary went to the
 * harness's pipe before that. A summary that counts failures next to a report with none means
 * the report was changed: the run proves nothing.
 */

/** `1 failed, 4 passed, 2 errors in 0.05s` (pytest, with or without the `===` rule). */
const PYTEST = /^=*\s*((?:\d+ [a-z]+(?:, )?)+) in \d+(?:\.\d+)?s(?: \([^)]*\))?\s*=*$/;
/** node:test's spec (`ℹ fail 1`) and TAP (`# fail 1`) reporters. */
const NODE = /^(?:ℹ|#) fail (\d+)$/;
/** jest: `Tests:       1 failed, 3 passed, 4 total`; vitest: ` Tests  1 failed | 3 passed (4)`. */
const JEST_VITEST = /^\s*Tests:?\s+(\d+) failed\b/;

/** Failures the runner's own summary lines report, summed over every summary; undefined when none was printed. */
export function summaryFailures(output: string): number | undefined {
  let found = false;
  let failed = 0;
  for (const raw of output.split('\n')) {
    // eslint-disable-next-line no-control-regex -- runners colour their summaries
    const line = raw.replace(/\x1b\[[0-9;]*m/g, '').trimEnd();
    const pytest = PYTEST.exec(line);
    if (pytest) {
      found = true;
      for (const part of (pytest[1] ?? '').split(', ')) {
        const [count = '0', kind = ''] = part.split(' ');
        if (kind === 'failed' || kind === 'error' || kind === 'errors') failed += Number(count);
      }
      continue;
    }
    const other = NODE.exec(line) ?? JEST_VITEST.exec(line);
    if (other) {
      found = true;
      failed += Number(other[1]);
    }
  }
  return found ? failed : undefined;
}
