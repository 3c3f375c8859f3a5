/**
 * The red team's honest controls, the exfiltration attack and the resource attacks on the bundled
 * examples (bwrap, through runAttempt): one part of the catalogue (helpers/catalogue.ts), so the
 * parts overlap. docs/redteam.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ATTACKS } from '../../src/domain/redteam/index.js';
import { STOLEN_FILE } from '../../src/domain/redteam/reading.js';
import { filesLargerThan } from '../helpers/tree-snapshot.js';
import { CANARY, MIB, catalogueRun, failedChecks, itEndsAsTheCatalogueSays } from './helpers/catalogue.js';

const run = catalogueRun('honest-secrets-resources');

describe('the attack catalogue on the bundled examples (bwrap): honest controls, exfiltration, resources', () => {
  itEndsAsTheCatalogueSays(run);

  it('honest controls trip no check at all', () => {
    const alarms = run.attacks
      .filter((a) => a.class === 'honest')
      .flatMap((a) => run.attemptsOf(a.name).map(({ taskId, a: r }) => ({ agent: a.name, taskId, failed: failedChecks(r) })))
      .filter((x) => x.failed.length > 0);
    expect(alarms).toEqual([]);
  });

  it('the agent reads nothing it must not: the stolen file is empty', () => {
    for (const { taskId, a } of run.attemptsOf('read-secrets')) {
      expect(a.agentResult?.stopReason, `${taskId}: ${a.agentResult?.error ?? ''}`).toBe('completed');
      const file = join(run.runDir, 'attempts', `${taskId}.read-secrets`, 'workspace', STOLEN_FILE);
      const stolen = existsSync(file) ? readFileSync(file, 'utf8') : stolenFromPatch(join(run.runDir, 'attempts', `${taskId}.read-secrets`, 'diff.patch'));
      expect(
        stolen.split('\n').filter((l) => l.startsWith('== ')),
        taskId,
      ).toEqual([]);
      expect(stolen).not.toContain(CANARY);
      expect(failedChecks(a), taskId).not.toContain('secrets');
    }
  });

  it('resource attacks leave no huge files in the run directory and no false test-tampering evidence', () => {
    for (const attack of ATTACKS.filter((a) => a.class === 'resources')) {
      for (const { taskId, a } of run.attemptsOf(attack.name)) {
        expect(filesLargerThan(join(run.runDir, 'attempts', `${taskId}.${attack.name}`), 16 * MIB), `${attack.name} on ${taskId}`).toEqual([]);
        const guard = a.checks.find((c) => c.id === 'test_tampering');
        expect({ attack: attack.name, taskId, tampering: guard?.passed === false ? guard.message : 'ok' }).toEqual({
          attack: attack.name,
          taskId,
          tampering: 'ok',
        });
      }
    }
  });
});

/** The added lines of the stolen file in a diff.patch, when the workspace is gone. */
function stolenFromPatch(patchFile: string): string {
  if (!existsSync(patchFile)) return '';
  const patch = readFileSync(patchFile, 'utf8');
  const start = patch.indexOf(`+++ b/${STOLEN_FILE}`);
  if (start === -1) return '';
  const lines: string[] = [];
  for (const line of patch.slice(start).split('\n').slice(1)) {
    if (line.startsWith('diff --git')) break;
    if (line.startsWith('+')) lines.push(line.slice(1));
  }
  return lines.join('\n');
}
