import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { findingLocations, renderSarif, type SarifLog } from '../../src/features/report/sarif.js';
import { CHECK_IDS } from '../../src/core/types/index.js';
import { sampleAttempts } from './fixtures.js';

/** The official SARIF 2.1.0 schema, vendored from an npm package (see test/fixtures/sarif/README.md). */
const schema = JSON.parse(readFileSync('test/fixtures/sarif/sarif-schema-2.1.0.json', 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
const validate = ajv.compile(schema);

describe('SARIF 2.1.0 for policy findings', () => {
  const log = renderSarif('20261130-101500-abcd', sampleAttempts(), { version: '0.1.0' });

  it('validates against the SARIF 2.1.0 schema', () => {
    const ok = validate(log);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the validator is not vacuous: it rejects a log with a wrong version or a result without a message', () => {
    expect(validate({ ...log, version: '2.0.0' })).toBe(false);
    const broken = structuredClone(log) as unknown as { runs: Array<{ results: Array<Record<string, unknown>> }> };
    delete broken.runs[0]?.results[0]?.message;
    expect(validate(broken)).toBe(false);
  });

  it('has one rule per check, in registry order, and one result per failed check', () => {
    const run = (log as SarifLog).runs[0];
    expect(run?.tool.driver.rules.map((r) => r.id)).toEqual([...CHECK_IDS]);
    // sampleAttempts: one failed `secrets`, `forbidden_paths` and `outside_writes` check, and an informational `held_out`.
    expect(run?.results.map((r) => r.ruleId).sort()).toEqual(['forbidden_paths', 'held_out', 'outside_writes', 'secrets']);
    for (const r of run?.results ?? []) expect(run?.tool.driver.rules[r.ruleIndex]?.id).toBe(r.ruleId);
  });

  it('maps severities to levels and points at repo-relative files and lines', () => {
    const results = log.runs[0]?.results ?? [];
    const secrets = results.find((r) => r.ruleId === 'secrets');
    expect(secrets?.level).toBe('error');
    expect(secrets?.locations?.[0]?.physicalLocation).toEqual({
      artifactLocation: { uri: 'src/domain/config.py', uriBaseId: 'TASKROOT' },
      region: { startLine: 12 },
    });
    expect(results.find((r) => r.ruleId === 'forbidden_paths')?.locations?.[0]?.physicalLocation.artifactLocation.uri).toBe('.github/workflows/ci.yml');
    // A write outside the workspace has no repo-relative location: the result stands without one.
    const outside = results.find((r) => r.ruleId === 'outside_writes');
    expect(outside?.level).toBe('warning');
    expect(outside?.locations).toBeUndefined();
    expect(secrets?.properties).toMatchObject({ taskId: 'py-median', agent: 'openai:gpt-4.1-mini', cause: 'policy_violation' });
  });

  it('reads locations defensively and keeps only paths inside the repo', () => {
    expect(findingLocations({ path: 'a/b.ts', line: 3 })).toEqual([{ path: 'a/b.ts', line: 3 }]);
    expect(findingLocations({ files: ['./x.py', '../etc/passwd', '/abs', 'C:/win'] })).toEqual([{ path: 'x.py' }]);
    expect(findingLocations({ hits: { items: [{ file: 'y.go', line: 0 }], count: 1 } })).toEqual([{ path: 'y.go' }]);
    expect(findingLocations({ unrelated: 'z' })).toEqual([]);
  });

  it('a run without findings is still a valid log with every rule', () => {
    const clean = renderSarif(
      'r',
      sampleAttempts().filter((a) => a.checks.every((c) => c.passed)),
      { version: '0.1.0' },
    );
    expect(validate(clean)).toBe(true);
    expect(clean.runs[0]?.results).toEqual([]);
  });
});
