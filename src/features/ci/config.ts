/**
 * `crucible.ci.yaml`: what `crucible ci` runs and which policy it applies. The policy block is the
 * task set's own (same schema, same meaning), so a rule learnt on tasks reads the same here.
 */
import { z } from 'zod';
import { DEFAULT_LIMITS, DEFAULT_TEST_PATHS, toMs } from '../../domain/config/index.js';
import { resolvePolicy, resolveResourceLimits } from '../../domain/config/index.js';
import { limitsSchema, policySchema } from '../../domain/config/index.js';
import { issueToError, YamlSource } from '../../core/input/index.js';
import { ConfigError, InputError } from '../../core/errors.js';
import { SECRET_PRESETS, type Limits, type PolicySpec } from '../../core/types/index.js';

export const CI_CONFIG_FILE = 'crucible.ci.yaml';

const ciTestsSchema = z.strictObject({
  command: z
    .string()
    .min(1)
    .describe('Shell command that runs the tests and writes JUnit XML to $CRUCIBLE_JUNIT (or to junit:); runs in the sandbox without network.'),
  junit: z.string().min(1).optional().describe('Where the command writes JUnit XML, relative to the checkout, if not $CRUCIBLE_JUNIT.'),
  fail_to_pass: z.array(z.string().min(1)).optional().describe('Test ids that must pass at head (they may fail at base).'),
  pass_to_pass: z
    .union([z.literal('all_others'), z.array(z.string().min(1))])
    .optional()
    .describe('Test ids that must keep passing if they passed at base, or all_others (default).'),
  test_paths: z.array(z.string().min(1)).optional().describe('Globs of the files that define the tests; a change to one is tampering.'),
});

export const ciConfigSchema = z.strictObject({
  tests: ciTestsSchema.optional(),
  policy: policySchema.optional(),
  setup: z.array(z.string().min(1)).optional().describe('Shell commands run in the copy of base before any test run (network allowed).'),
  limits: limitsSchema.optional(),
});

export type CiConfigInput = z.input<typeof ciConfigSchema>;

/** The resolved settings `crucible ci` evaluates with. */
export interface CiSettings {
  /** Where the settings came from, for reports: a file (and at which ref), or flags alone. */
  source: string;
  tests: { command: string; junit?: string; failToPass: string[]; passToPass: string[] | 'all_others'; testPaths: string[] };
  policy: PolicySpec;
  setup: string[];
  limits: Limits;
}

export interface CiFlags {
  testCommand?: string;
  junit?: string;
  failToPass?: string[];
}

/**
 * Parses the config text (`file` names it in errors) and lays the flags over it. Flags alone are
 * enough when they give a test command; neither is an InputError naming the fix.
 */
export function resolveCiSettings(file: { name: string; text: string } | undefined, flags: CiFlags): CiSettings {
  let parsed: z.output<typeof ciConfigSchema> = {};
  if (file) {
    const source = YamlSource.parse(file.name, file.text);
    const raw = source.toJS() ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      throw new ConfigError({ file: file.name, ...source.rootPosition() }, 'expected a mapping with tests:, policy:, setup:, limits:', 'see docs/ci.md');
    }
    const result = ciConfigSchema.safeParse(raw);
    if (!result.success) throw issueToError(source, ciConfigSchema, result.error.issues, []);
    parsed = result.data;
  }
  const command = flags.testCommand ?? parsed.tests?.command;
  if (command === undefined) {
    throw new InputError(
      file
        ? `${file.name}: tests.command is missing (fix: add tests: { command: ... } or pass --test-command)`
        : `no ${CI_CONFIG_FILE} and no --test-command (fix: add ${CI_CONFIG_FILE} with tests: { command: ... } or pass --test-command "npm test")`,
    );
  }
  const limits = parsed.limits ?? {};
  return {
    source: file ? file.name : 'flags',
    tests: {
      command,
      junit: flags.junit ?? parsed.tests?.junit,
      failToPass: flags.failToPass ?? parsed.tests?.fail_to_pass ?? [],
      passToPass: parsed.tests?.pass_to_pass ?? 'all_others',
      testPaths: parsed.tests?.test_paths ?? DEFAULT_TEST_PATHS,
    },
    policy: ciPolicy(resolvePolicy(parsed.policy), parsed.policy?.secrets?.presets !== undefined),
    setup: parsed.setup ?? [],
    limits: {
      agentTimeoutMs: DEFAULT_LIMITS.agentTimeoutMs,
      testTimeoutMs: toMs(limits.test_timeout) ?? DEFAULT_LIMITS.testTimeoutMs,
      setupTimeoutMs: toMs(limits.setup_timeout) ?? DEFAULT_LIMITS.setupTimeoutMs,
      resources: resolveResourceLimits(limits),
    },
  };
}

/**
 * A change that changes nothing is not a failure of a pull request (a docs-only push to a branch
 * with nothing staged, a re-run): `no_changes` is reported, at `info`, unless the config says otherwise.
 * A pull request is where a leaked key costs most, so every secret detector is on unless the config
 * names its own presets (`presets: []` turns them off, on purpose and in review).
 */
function ciPolicy(policy: PolicySpec, presetsGiven: boolean): PolicySpec {
  const secrets = presetsGiven ? policy.secrets : { ...policy.secrets, presets: [...SECRET_PRESETS] };
  return { ...policy, secrets, severities: { no_changes: 'info', ...policy.severities } };
}
