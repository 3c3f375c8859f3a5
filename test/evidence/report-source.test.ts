import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/domain/evidence/run-tests.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import type { TestFormat, TestReportSource } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const TAP = "printf 'TAP version 13\\n# Subtest: adds\\nok 1 - adds\\n1..1\\n'";

function run(command: string, format: TestFormat, report?: TestReportSource) {
  const root = tempDir();
  const d = { workspace: join(root, 'ws'), results: join(root, 'results'), home: join(root, 'home'), tmp: join(root, 'tmp') };
  for (const dir of Object.values(d)) mkdirSync(dir, { recursive: true });
  const executor = createExecutor('local', { writable: [d.workspace], hidden: [], readOnly: [], home: d.home, tmp: d.tmp });
  return runTests({
    executor,
    workspace: d.workspace,
    command,
    format,
    ...(report ? { report } : {}),
    resultsDir: d.results,
    failToPass: ['adds'],
    passToPass: 'all_others',
    timeoutMs: 30_000,
  });
}

describe('where a stream format’s report is read', () => {
  it('stdout by default; no JUnit text comes back to be kept as a JUnit file', async () => {
    const { evidence, junitXml, cases } = await run(TAP, 'tap');
    expect(evidence.invalidReason).toBeUndefined();
    expect(evidence.failToPass.passed).toBe(1);
    expect(junitXml).toBeUndefined();
    expect(cases?.map((c) => c.id)).toEqual(['adds']);
  });

  it('report: file reads $CRUCIBLE_REPORT, and what the command prints on stdout does not count', async () => {
    const forged = "printf 'ok 1 - adds\\n1..1\\n'";
    const real = `${TAP.replace('ok 1 - adds', 'not ok 1 - adds')} > "$CRUCIBLE_REPORT"; exit 1`;
    const { evidence } = await run(`${forged}; ${real}`, 'tap', 'file');
    expect(evidence.invalidReason).toBeUndefined();
    expect(evidence.failToPass.failing).toEqual([{ id: 'adds', reason: 'failed' }]);
    expect(evidence.consistent).toBe(true);
  });

  it('report: file with nothing written is no report', async () => {
    const { evidence } = await run(TAP, 'tap', 'file');
    expect(evidence.invalidReason).toBe('test command wrote no TAP stream');
  });

  it('$CRUCIBLE_REPORT is set only for report: file, and is outside the workspace', async () => {
    const { evidence } = await run(`case "$CRUCIBLE_REPORT" in "") exit 3;; "$PWD"*) exit 4;; esac; ${TAP} > "$CRUCIBLE_REPORT"`, 'tap', 'file');
    expect(evidence.exitCode).toBe(0);
    expect((await run('test -z "$CRUCIBLE_REPORT" && ' + TAP, 'tap')).evidence.failToPass.passed).toBe(1);
  });
});
