import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { formatAttempt } from '../../src/cli/commands/show.js';
import { captureIo } from '../helpers/cli.js';
import { renderJUnit, renderMarkdown, runViewOf } from '../../src/features/report/index.js';
import type { AttemptDetail } from '../../src/infra/store/index.js';
import { attempt, summaryOf } from '../report/fixtures.js';

// What a failed setup and a contradictory provider leave on an attempt, as `show` and report.md print it.
const setupFailed = attempt({
  taskId: 'npm-task',
  agent: 'openai:gpt-4.1-mini',
  verdict: 'ERROR',
  message: 'prepare: setup command `npm ci` failed (exit 1): npm error code ETARGET',
  harnessError: {
    phase: 'prepare',
    message: 'setup command `npm ci` failed (exit 1): npm error code ETARGET',
    detail: 'npm error code ETARGET\n[… 12 lines cut …]\nnpm error notarget No matching version found for left-pad@99.0.0 (see ```)',
  },
  timings: { prepareMs: 4200, copyMs: 150, setupMs: 4000, agentMs: 0, verifyMs: 0, totalMs: 4300 },
  agentResult: {
    stopReason: 'completed',
    usage: {
      inputTokens: 1000,
      outputTokens: 50,
      cacheReadTokens: 1200,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      requests: 2,
      anomalies: { responses: 1, examples: ['prompt_tokens_details.cached_tokens (1200) is more than prompt_tokens (1000)'] },
    },
  },
});

describe('an attempt with a failed setup and contradictory usage, as show and the reports print it', () => {
  it('`show` prints the setup excerpt, the split of prepare and the usage contradiction', () => {
    const text = stripVTControlCharacters(formatAttempt({ attempt: setupFailed, checks: [] } as unknown as AttemptDetail, '/nowhere', captureIo().io));
    expect(text).toContain('  │ npm error notarget No matching version found for left-pad@99.0.0');
    expect(text).toContain('  │ [… 12 lines cut …]');
    expect(text).toMatch(/prepare 4\.2s \(copy 150ms · setup 4\.0s\)/);
    expect(text).toContain(
      'usage contradicts itself in 1 response: prompt_tokens_details.cached_tokens (1200) is more than prompt_tokens (1000) (counts and cost as the provider reported them, not corrected)',
    );
  });

  it('report.md shows the excerpt in a code block no line of it can close, and the contradiction', () => {
    const md = renderMarkdown(runViewOf({ runDir: '/nowhere', summary: summaryOf([setupFailed]), attempts: [setupFailed] }), [setupFailed]);
    expect(md).toContain(
      '````text\nnpm error code ETARGET\n[… 12 lines cut …]\nnpm error notarget No matching version found for left-pad@99.0.0 (see ```)\n````',
    );
    expect(md).toContain('**Usage:** usage contradicts itself in 1 response');
  });

  it('the JUnit report carries the setup excerpt in the error body', () => {
    const xml = renderJUnit('run', [setupFailed]);
    expect(xml).toContain('npm error code ETARGET\n[… 12 lines cut …]\nnpm error notarget No matching version found for left-pad@99.0.0');
  });
});
