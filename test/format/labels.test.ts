import { describe, expect, it } from 'vitest';
import { cutLabels, distinctLabels } from '../../src/core/format/index.js';

describe('distinctLabels', () => {
  it('keeps names that fit, and cuts long ones so two models of one provider stay apart', () => {
    const names = ['openai-compatible:qwen3-coder-plus', 'openai-compatible:qwen3-coder-flash', 'oracle'];
    const labels = distinctLabels(names, 18);
    expect(labels.get('oracle')).toBe('oracle');
    const plus = labels.get('openai-compatible:qwen3-coder-plus') as string;
    const flash = labels.get('openai-compatible:qwen3-coder-flash') as string;
    expect(plus).not.toBe(flash);
    expect(plus.length).toBeLessThanOrEqual(18);
    expect(plus).toMatch(/….*plus$/);
    expect(flash).toMatch(/….*flash$/);
    expect(cutLabels(labels).map((c) => c.name)).toEqual(['openai-compatible:qwen3-coder-plus', 'openai-compatible:qwen3-coder-flash']);
  });

  it('keeps the start too when the start is what differs', () => {
    const labels = distinctLabels(['azure-openai:gpt-4.1-2025-04-14', 'openai-direct:gpt-4.1-2025-04-14'], 16);
    const values = [...labels.values()];
    expect(values[0]).toMatch(/^a.*…/);
    expect(values[1]).toMatch(/^o.*…/);
    expect(new Set(values).size).toBe(2);
  });

  it('finds the split that tells names apart when they differ in the middle', () => {
    const names = ['provider-long-name:model-alpha-2024-06-01-preview', 'provider-long-name:model-betaa-2024-06-01-preview'];
    const labels = [...distinctLabels(names, 24).values()];
    expect(new Set(labels).size).toBe(2);
    for (const l of labels) expect(l.length).toBeLessThanOrEqual(24);
  });

  it('keeps every name whole when no cut of that length tells them apart', () => {
    const names = ['aaaaaaaaaaXbbbbbbbbbb', 'aaaaaaaaaaYbbbbbbbbbb'];
    // Any 5-character head…tail hides the one differing character in the middle.
    expect([...distinctLabels(names, 5).values()]).toEqual(names);
    expect(cutLabels(distinctLabels(names, 5))).toEqual([]);
  });
});
