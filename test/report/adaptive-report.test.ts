import { describe, expect, it } from 'vitest';
import type { AdaptiveSummary } from '../../src/engine/index.js';
import { runViewOf } from '../../src/features/report/data.js';
import { renderMarkdown } from '../../src/features/report/markdown.js';
import { sampleAttempts, summaryOf } from './fixtures.js';

const adaptive: AdaptiveSummary = {
  target: { kind: 'separate', confidence: 0.95 },
  maxAttempts: 60,
  stopped: 'target met',
  spent: 16,
  comparisons: [{ a: 'oracle', b: 'nop', verdict: 'A better', eValue: 256 / 9, threshold: 20, wins: 8, losses: 0, pairs: 8 }],
  agents: [
    { agent: 'oracle', open: false },
    { agent: 'nop', open: false },
  ],
};

describe('reports of an adaptive run', () => {
  it('say how the run stopped and what it decided, instead of "stopped early"', () => {
    const attempts = sampleAttempts();
    const summary = { ...summaryOf(attempts), planned: 120, stoppedEarly: true, adaptive };
    const view = runViewOf({ runDir: '/nowhere', summary, attempts });
    expect(view.run.adaptiveStop).toContain('adaptive: stopped, target met: every pair of agents separated, after 16 of at most 60 attempts');
    const md = renderMarkdown(view, attempts);
    expect(md).toContain(
      '> **Adaptive run:** stopped, target met: every pair of agents separated, after 16 of at most 60 attempts<br>oracle vs nop: A better (e-value 28.4 vs 20.0, 8–0 on discordant pairs)',
    );
    expect(md).not.toContain('Stopped early');
  });

  it('leave an ordinary run as it was', () => {
    const attempts = sampleAttempts();
    const view = runViewOf({ runDir: '/nowhere', summary: summaryOf(attempts), attempts });
    expect(view.run.adaptiveStop).toBeUndefined();
    expect(renderMarkdown(view, attempts)).not.toContain('Adaptive run');
  });
});
