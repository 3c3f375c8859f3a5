import { describe, expect, it } from 'vitest';
import { runViewOf } from '../../src/features/report/data.js';
import { mdCode, mdText, renderMarkdown } from '../../src/features/report/markdown.js';
import { attempt, sampleAttempts, summaryOf } from './fixtures.js';

describe('Markdown run report', () => {
  const attempts = sampleAttempts();
  const view = runViewOf({ runDir: '/nowhere', summary: summaryOf(attempts), attempts });
  const md = renderMarkdown(view, attempts, { passingDetails: true, links: true });

  it('leads with the verdict: counts, pass rate with interval and n, and the paired verdict', () => {
    expect(md).toContain('**3 of 6 attempts passed** · 2 failed · 1 errored');
    expect(md).toMatch(/\| \*\*oracle\*\* \| 100% \[\d+%, 100%\] \| 2\/2 \|/);
    expect(md).toMatch(/does not separate|is better than/);
  });

  it("lists every attempt's checks with severity, and the failing evidence and the cause", () => {
    const section = md.slice(md.indexOf('### ❌ py-median · openai:gpt-4.1-mini #0'));
    expect(section).toContain('**Cause:** `policy_violation`');
    expect(section).toContain('| `secrets` | critical | **fail** | possible secrets added: aws-key in src/domain/config.py:12 |');
    expect(section).toContain('| `forbidden_paths` | error | **fail** |');
    expect(section).toContain('| `tests` | error | pass |');
    expect(section).toContain(
      '`secrets` evidence: `{"presets":["cloud-keys"],"findings":{"items":[{"detector":"aws-key","file":"src/domain/config.py","line":12}],"count":1}}`',
    );
    // Passing attempts keep their checks too, folded.
    expect(md).toContain('<details><summary>3 checks, 0 failed</summary>');
    // Failing tests are named with their reason.
    expect(md).toContain('  - `t::a` (failed)');
  });

  it('gives a score only to graded work: a nop that changed nothing is not half a pass', () => {
    const graded = attempt({ taskId: 'py-median', agent: 'claude', verdict: 'FAIL', score: 40 });
    const nop = attempt({ taskId: 'py-median', agent: 'nop', verdict: 'FAIL', cause: 'no_changes', score: 50 });
    const both = [graded, nop];
    const text = renderMarkdown(runViewOf({ runDir: '/nowhere', summary: summaryOf(both), attempts: both }), both, { passingDetails: true, links: true });
    expect(text).toContain('· score 40');
    expect(text).not.toContain('score 50');
  });

  it('reports harness errors apart, with their phase', () => {
    expect(md).toContain('**Harness error** in prepare: bwrap: setting up uid map: Permission denied');
    expect(md).toMatch(/\| \*\*oracle\*\* \|[^\n]*\| 1 of 3 \|/);
  });

  it('shows held-out overfitting', () => {
    expect(md).toContain('## Held-out tests');
    expect(md).toContain('| openai:gpt-4.1-mini | 0/1 | 1 |');
    // In the verdict table too, per agent, since a task keeps its held-out tests informational.
    expect(md).toContain('| median time | overfitting |');
    expect(md).toMatch(/\| \*\*openai:gpt-4\.1-mini\*\* \|[^\n]*\| 1 of 1 pass \|\n/);
    expect(md).toMatch(/\| \*\*oracle\*\* \|[^\n]*\| – \|\n/);
  });

  it('leaves the overfitting column out without informational held-out tests, and for old stats', () => {
    const plain = attempts.filter((a) => a.taskId !== 'py-roman');
    const plainMd = renderMarkdown(runViewOf({ runDir: '/nowhere', summary: summaryOf(plain), attempts: plain }), plain);
    expect(plainMd).not.toContain('overfitting');
    const required = attempts.map((a) => ({ ...a, checks: a.checks.map((c) => (c.id === 'held_out' ? { ...c, severity: 'error' as const } : c)) }));
    expect(renderMarkdown(runViewOf({ runDir: '/nowhere', summary: summaryOf(required), attempts: required }), required)).not.toContain('| overfitting |');
    // Stats written before the field existed have no `overfitting`: same as none.
    const old = runViewOf({ runDir: '/nowhere', summary: summaryOf(attempts), attempts });
    const stats = old.stats ? { ...old.stats, agents: old.stats.agents.map(({ overfitting: _omit, ...rest }) => rest) } : null;
    expect(renderMarkdown({ ...old, stats }, attempts)).not.toContain('| overfitting |');
  });

  it('escapes text that would break tables or inject HTML', () => {
    expect(md).not.toContain('<script>');
    expect(mdText('a | b <x> `c`')).toBe('a \\| b \\<x\\> \\`c\\`');
    expect(mdCode('uses `ticks`')).toBe('`` uses `ticks` ``');
  });

  it('the GitHub variant leaves passing attempts out', () => {
    const short = renderMarkdown(view, attempts, { passingDetails: false });
    expect(short).not.toContain('### ✅');
    expect(short).toContain('### ❌ py-median');
  });
});
