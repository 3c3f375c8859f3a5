import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/domain/evidence/run-tests.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const REPORT = '<testsuites><testcase classname="t" name="ok"/></testsuites>';

/** A workspace, a results directory and an outside directory holding a forged report and a canary. */
function dirs() {
  const root = tempDir();
  const d = {
    workspace: join(root, 'workspace'),
    results: join(root, 'results'),
    outside: join(root, 'outside'),
    home: join(root, 'home'),
    tmp: join(root, 'tmp'),
  };
  for (const dir of Object.values(d)) mkdirSync(dir, { recursive: true });
  writeFileSync(join(d.outside, 'junit.xml'), REPORT);
  writeFileSync(join(d.outside, 'canary.txt'), 'untouched\n');
  return d;
}

function run(d: ReturnType<typeof dirs>, command: string, junit?: string) {
  // The local executor: nothing stops the command, so only the harness's own care is measured.
  const executor = createExecutor('local', { writable: [d.workspace], hidden: [], readOnly: [], home: d.home, tmp: d.tmp });
  return runTests({
    executor,
    workspace: d.workspace,
    command,
    junit,
    resultsDir: d.results,
    failToPass: ['t::ok'],
    passToPass: 'all_others',
    timeoutMs: 30_000,
  });
}

describe('running the tests', () => {
  it('writes the report under a name nobody knows in advance, in the results directory', async () => {
    const d = dirs();
    const { evidence } = await run(d, `printf '%s' '${REPORT}' > "$CRUCIBLE_JUNIT"; basename "$CRUCIBLE_JUNIT"`);
    expect(evidence).toMatchObject({ parsed: 1, consistent: true, failToPass: { passed: 1 } });
    expect(evidence.outputTail.trim()).toMatch(/^[0-9a-f]{24}\.xml$/);
  });

  it('never reads or deletes through a symlink planted on the way to a workspace report path', async () => {
    const d = dirs();
    // Code under test plants the link while the tests run; the "report" behind it is forged.
    const { evidence } = await run(d, `ln -s ${d.outside} reports`, 'reports/junit.xml');
    expect(evidence.invalidReason).toMatch(/goes through a symlink/);
    expect(evidence.failToPass.failing).toEqual([{ id: 't::ok', reason: 'missing' }]);
    // A link there before the run: the stale report is not deleted through it either.
    const before = dirs();
    symlinkSync(before.outside, join(before.workspace, 'reports'));
    await run(before, 'true', 'reports/junit.xml');
    expect(existsSync(join(before.outside, 'junit.xml'))).toBe(true);
    expect(readFileSync(join(before.outside, 'canary.txt'), 'utf8')).toBe('untouched\n');
  });

  it('never waits on a FIFO planted where the report goes: the run has no report, and the harness goes on', async () => {
    for (const [command, junit] of [
      ['mkfifo "$CRUCIBLE_JUNIT"', undefined],
      ['mkdir -p reports && mkfifo reports/junit.xml', 'reports/junit.xml'],
    ] as const) {
      const { evidence } = await run(dirs(), command, junit);
      expect(evidence.invalidReason, command).toMatch(/not a regular file/);
      expect(evidence.failToPass.failing).toEqual([{ id: 't::ok', reason: 'missing' }]);
    }
  });
});
