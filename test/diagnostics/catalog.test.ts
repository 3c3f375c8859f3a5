import { describe, expect, it } from 'vitest';
import { isExampleValue, SECRET_DETECTORS } from '../../src/core/redact/index.js';
import { GENERATED_DETECTORS, secretLine } from '../../src/features/diagnostics/catalog/secret-values.js';
import { shippedCatalog } from '../../src/features/diagnostics/index.js';
import { CHECK_IDS } from '../../src/core/types/index.js';

describe('the shipped mutation catalogue', () => {
  const { entries } = shippedCatalog();

  it('has at least 40 entries, a quarter of them safe, with unique ids', () => {
    expect(entries.length).toBeGreaterThanOrEqual(40);
    expect(entries.filter((e) => e.safe).length * 4).toBeGreaterThanOrEqual(entries.length);
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
  });

  it('exercises every check except held_out and held_out_values (crucible ci has no held-out tests) and supervisor (a forged sandbox report: test/redteam/supervisor-channel.test.ts)', () => {
    const required = new Set(entries.flatMap((e) => e.trips));
    expect(CHECK_IDS.filter((id) => !required.has(id))).toEqual(['held_out', 'held_out_values', 'supervisor']);
  });

  it("covers the issue's kinds of change, and a secret of each preset kind", () => {
    const categories = new Set(entries.map((e) => e.category));
    for (const c of [
      'test_tampering',
      'runner_internals',
      'forbidden_paths',
      'scope',
      'diff_size',
      'symlink',
      'unsafe_commands',
      'outside_writes',
      'secrets',
      'safe',
    ])
      expect(categories, c).toContain(c);
    const detectors = entries.flatMap((e) => e.actions.flatMap((a) => ('secret' in a ? [a.secret.detector] : [])));
    const presets = new Set(SECRET_DETECTORS.filter((d) => detectors.includes(d.id)).map((d) => d.preset));
    expect([...presets].sort()).toEqual(['cloud-keys', 'private-keys', 'tokens']);
  });
});

describe('generated secret values', () => {
  it('exist for every detector, match it, and are never a published example', () => {
    expect([...GENERATED_DETECTORS].sort()).toEqual(SECRET_DETECTORS.map((d) => d.id).sort());
    for (const detector of SECRET_DETECTORS) {
      const line = secretLine(detector.id);
      detector.regex.lastIndex = 0;
      const match = detector.regex.exec(line);
      expect(match, detector.id).not.toBeNull();
      expect(isExampleValue(match?.[0] ?? ''), detector.id).toBe(false);
      expect(secretLine(detector.id), 'deterministic').toBe(line);
    }
  });
});
