import { describe, expect, it } from 'vitest';
import { formatRunReport } from '../../src/cli/format-run.js';
import { runViewOf } from '../../src/features/report/data.js';
import { failureFacts } from '../../src/domain/failures/failure-facts.js';
import { failurePatterns } from '../../src/domain/failures/failure-patterns.js';
import { renderMarkdown } from '../../src/features/report/markdown.js';
import { sampleAttempts, summaryOf } from './fixtures.js';

describe('failure patterns in the reports', () => {
  const attempts = sampleAttempts();
  const failed = attempts.filter((a) => a.verdict === 'FAIL');
  // Every failed attempt of the fixtures stopped at a limit without running the tests.
  const table = failurePatterns(
    failed.map((a) => ({
      attemptId: a.attemptId,
      agent: a.agent,
      verdict: a.verdict,
      facts: failureFacts({ trajectory: [], commands: [], changedFiles: [], failToPass: [], allowedPaths: [], stopReason: 'max_turns' }),
      recorded: true,
    })),
  );
  const summary = { ...summaryOf(attempts), failurePatterns: table };

  it('report.md has a table per agent and pattern, each attempt id linking to its section', () => {
    const md = renderMarkdown(runViewOf({ runDir: '/nowhere', summary, attempts }), attempts, { passingDetails: true, links: true });
    expect(md).toContain('## Failure patterns');
    const first = failed[0];
    if (!first) throw new Error('the fixtures have a failed attempt');
    const row = md.split('\n').find((l) => l.includes('stopped at a limit') && l.includes(first.agent));
    expect(row).toContain(`[\`${first.attemptId}\`](#attempt-${first.attemptId.replace(/[^A-Za-z0-9_-]/g, '-')})`);
    expect(md).toContain(`<a id="attempt-${first.attemptId.replace(/[^A-Za-z0-9_-]/g, '-')}"></a>`);
    expect(row).toMatch(/\| \d+\/\d+ \| 100% \[\d+–100%\] \|/);
  });

  it('report.md says which agents had failed attempts without a trajectory', () => {
    const facts = failureFacts({ trajectory: [], commands: [], changedFiles: ['src/a.mjs'], failToPass: [], allowedPaths: [], stopReason: 'submitted' });
    const patches = failurePatterns(failed.map((a) => ({ attemptId: a.attemptId, agent: a.agent, verdict: a.verdict, facts, recorded: false })));
    const withPatches = { ...summaryOf(attempts), failurePatterns: patches };
    const md = renderMarkdown(runViewOf({ runDir: '/nowhere', summary: withPatches, attempts }), attempts);
    const first = patches[0];
    if (!first) throw new Error('the fixtures have a failed attempt');
    expect(md).toContain(
      `Without a trajectory (a reference agent, or a patch graded from elsewhere), so read for their diff, commands and stop only: ${first.agent} ${first.failed} of ${first.failed}`,
    );
    expect(md).not.toContain('never ran the tests');
  });

  it('a run without failure patterns has no section', () => {
    const md = renderMarkdown(runViewOf({ runDir: '/nowhere', summary: summaryOf(attempts), attempts }), attempts);
    expect(md).not.toContain('## Failure patterns');
  });

  it('the end-of-run terminal output lists them with counts, intervals and attempt ids', () => {
    const text = formatRunReport({
      runId: 'r',
      attempts: [],
      planned: 1,
      executed: 1,
      counts: { PASS: 0, FAIL: 1, ERROR: 0 },
      stats: null,
      failurePatterns: table,
    });
    expect(text).toContain('Failure patterns');
    expect(text).toMatch(new RegExp(`stopped at a limit: \\d+/\\d+ 100% \\[\\d+%–100%\\]  ${failed[0]?.attemptId}`));
  });
});
