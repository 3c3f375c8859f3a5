import { describe, expect, it } from 'vitest';
import { TRAJECTORY_FILE } from '../../src/domain/agents/index.js';
import { SETUP_OUTPUT_FILE } from '../../src/domain/evidence/index.js';
import { INCIDENT_FILE } from '../../src/domain/guard/index.js';
import { MANIFEST_FILE } from '../../src/domain/manifest/index.js';
import { REPORT_FILES } from '../../src/features/report/index.js';
import { ATTEMPT_FILES, RUN_FILES, RUN_REPORT_FILES, attemptDir, attemptRecordFile, runsDirOf } from '../../src/domain/run-dir/index.js';
import { TRACE_FILE } from '../../src/domain/trace/index.js';

describe('run directory names', () => {
  // The modules that write these files name them too (they sit below run-dir); the names must not drift apart.
  it('are the names the writers of each file use', () => {
    expect(ATTEMPT_FILES.trace).toBe(TRACE_FILE);
    expect(ATTEMPT_FILES.trajectory).toBe(TRAJECTORY_FILE);
    expect(ATTEMPT_FILES.setupOutput).toBe(SETUP_OUTPUT_FILE);
    expect(ATTEMPT_FILES.incident).toBe(INCIDENT_FILE);
    expect(ATTEMPT_FILES.manifest).toBe(MANIFEST_FILE);
    expect(RUN_FILES.manifest).toBe(MANIFEST_FILE);
    expect(REPORT_FILES).toEqual(RUN_REPORT_FILES);
  });

  it('lay out runs as before: runs/ or validate/, attempts/<id>/attempt.json', () => {
    expect(runsDirOf('/s')).toBe('/s/runs');
    expect(runsDirOf('/s', 'validate')).toBe('/s/validate');
    expect(attemptDir('/s/runs/r', 'a.b.0')).toBe('/s/runs/r/attempts/a.b.0');
    expect(attemptRecordFile('/s/runs/r', 'a.b.0')).toBe('/s/runs/r/attempts/a.b.0/attempt.json');
  });
});
