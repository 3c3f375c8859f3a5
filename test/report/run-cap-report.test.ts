import { describe, expect, it } from 'vitest';
import { runViewOf } from '../../src/features/report/data.js';
import { renderMarkdown } from '../../src/features/report/markdown.js';
import { sampleAttempts, summaryOf } from './fixtures.js';

describe('a run cap in report.md', () => {
  it('says what the run spent against its caps and which cap stopped it', () => {
    const attempts = sampleAttempts();
    const runBudget = { limits: { maxCostUsd: 0.05, maxTokens: 2000 }, spentUsd: 0.0034, spentTokens: 6600, reached: 'tokens' as const };
    const summary = { ...summaryOf(attempts), planned: 8, stoppedEarly: true, runBudget };
    const md = renderMarkdown(runViewOf({ runDir: '/nowhere', summary, attempts }), attempts);
    expect(md).toContain('> **Stopped early:** 6 of 8 planned attempts ran.');
    expect(md).toContain(
      '> **Run cap:** run token cap reached (spent $0.0034 of --max-cost-total $0.05, 6600 tokens of --max-tokens-total 2000); no further attempt started',
    );
  });

  it('a run under its cap says what it spent; a run without caps says nothing of them', () => {
    const attempts = sampleAttempts();
    const runBudget = { limits: { maxCostUsd: 0.05 }, spentUsd: 0.01, spentTokens: 900 };
    const summary = { ...summaryOf(attempts), runBudget };
    const under = renderMarkdown(runViewOf({ runDir: '/nowhere', summary, attempts }), attempts);
    expect(under).toContain('> **Run cap:** spent $0.01 of --max-cost-total $0.05; no cap reached');
    const none = renderMarkdown(runViewOf({ runDir: '/nowhere', summary: summaryOf(attempts), attempts }), attempts);
    expect(none).not.toContain('Run cap');
  });
});
