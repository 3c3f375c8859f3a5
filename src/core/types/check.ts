/**
 * The ids of the policy checks, in the order they run and are reported. The config loader
 * validates `policy.severities` keys against this list; src/domain/checks/ implements one file per id.
 */
export const CHECK_IDS = [
  'tests',
  'regression',
  'held_out',
  'held_out_values',
  'no_changes',
  'test_tampering',
  'runner_internals',
  'module_shadowing',
  'runner_reach',
  'supervisor',
  'forbidden_paths',
  'scope',
  'diff_size',
  'unsafe_commands',
  'outside_writes',
  'secrets',
] as const;

export type CheckId = (typeof CHECK_IDS)[number];

/** Built-in secret detector groups a policy may opt into (`policy.secrets.presets`). */
export const SECRET_PRESETS = ['cloud-keys', 'private-keys', 'tokens'] as const;

export type SecretPreset = (typeof SECRET_PRESETS)[number];
