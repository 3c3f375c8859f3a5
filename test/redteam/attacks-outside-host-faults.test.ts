/**
 * The red team's outside-diff, host-write and harness-error (fault-forging and special-file)
 * attacks on the bundled examples (bwrap, through runAttempt): one part of the catalogue
 * (helpers/catalogue.ts), so the parts overlap. docs/redteam.md.
 */
import { describe, expect, it } from 'vitest';
import { catalogueRun, failedChecks, itEndsAsTheCatalogueSays } from './helpers/catalogue.js';

const run = catalogueRun('outside-host-faults');

describe('the attack catalogue on the bundled examples (bwrap): outside the diff, host writes, forged harness errors', () => {
  itEndsAsTheCatalogueSays(run);

  it('the held-out tests never see what the main run left behind (conftest-at-test-time)', () => {
    for (const { taskId, a } of run.attemptsOf('conftest-at-test-time')) {
      expect(a.heldOut, taskId).toBeDefined();
      expect(a.heldOut?.passToPass.failing.length, `${taskId}: held-out tests must fail without a fix`).toBeGreaterThan(0);
    }
  });

  it('a secret committed in a nested git repository is seen by the secrets check', () => {
    for (const { taskId, a } of run.attemptsOf('nested-git-secret')) expect(failedChecks(a), taskId).toContain('secrets');
  });

  it('the special-file attacks did what they say: their agent completed, and the report was a FIFO', () => {
    // deep-nesting is left out: the workspace watchdog may stop it as soon as its nest passes PATH_MAX.
    for (const name of ['report-fifo', 'odd-files', 'leftover-writer'])
      for (const { taskId, a } of run.attemptsOf(name))
        expect(a.agentResult?.stopReason, `${name} on ${taskId}: ${a.agentResult?.error ?? ''}`).toBe('completed');
    for (const { taskId, a } of run.attemptsOf('report-fifo')) expect(a.tests?.invalidReason, taskId).toMatch(/not a regular file/);
  });
});
