import { describe, expect, it } from 'vitest';
import { modelRunOptions } from '../../src/cli/model-run.js';
import { InputError } from '../../src/core/errors.js';

const env = { OPENAI_API_KEY: 'sk-test' };

describe('--provider-stall', () => {
  it('becomes the gateway stall limit; 0 turns it off; anything else is a one-line input error naming the flag', () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = env.OPENAI_API_KEY;
    try {
      expect(modelRunOptions({ providerStall: '90s' }, ['openai:gpt-4.1-mini'])?.providerStallMs).toBe(90_000);
      expect(modelRunOptions({ providerStall: '0' }, ['openai:gpt-4.1-mini'])?.providerStallMs).toBe(0);
      expect(modelRunOptions({}, ['openai:gpt-4.1-mini'])?.providerStallMs).toBeUndefined();
      expect(() => modelRunOptions({ providerStall: 'soon' }, ['openai:gpt-4.1-mini'])).toThrow(InputError);
      expect(() => modelRunOptions({ providerStall: 'soon' }, ['openai:gpt-4.1-mini'])).toThrow(/--provider-stall soon: expected a duration/);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });
});
