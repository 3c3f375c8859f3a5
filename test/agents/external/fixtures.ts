import type { AgentProfile } from '../../../src/domain/agents/external/profile.js';

/** A Claude Code profile as the built-in one reads, for tests that need a profile but run no program. */
export const CLAUDE_PROFILE: AgentProfile = {
  name: 'claude-code',
  package: '@anthropic-ai/claude-code@2.1.332',
  command: ['claude', '-p', '{task_prompt}', '--output-format', 'stream-json', '--verbose', '--model', '{model}'],
  stdin: 'none',
  env: [],
  setEnv: {},
  homeFiles: {},
  model: 'claude-sonnet-4-5',
  protocol: { kind: 'anthropic', baseUrlEnv: ['ANTHROPIC_BASE_URL'], apiKeyEnv: ['ANTHROPIC_API_KEY'] },
  output: 'claude-stream-json',
  source: 'builtin',
};
