import { z } from 'zod';
import { CHECK_IDS, SECRET_PRESETS, type JsonValue } from '../../core/types/index.js';
import { profileSchema } from '../agents/index.js';
import { DURATION_PATTERN, MAX_DURATION_MS, MAX_DURATION_TEXT, toMs } from './duration.js';

export { DURATION_PATTERN };

/**
 * The task-set file format, as users write it (snake_case YAML). Every object is strict: an unknown
 * field is an error, because a misspelt `fail_to_pass` silently ignored would grade the wrong thing.
 */

const duration = z
  .union([z.number().positive(), z.string().regex(DURATION_PATTERN, 'expected a duration like 90s, 10m or 1h')])
  .refine((value) => (toMs(value) ?? 0) <= MAX_DURATION_MS, { message: `longer than ${MAX_DURATION_TEXT}, the longest timeout a timer holds` })
  .describe('Seconds as a number, or a string such as 500ms, 90s, 10m, 1h.');

const relativePath = z.string().min(1);
/** An absolute path inside a container: `/app`, `/tests`; no `..` and not the root itself. */
const containerPath = z.string().regex(/^(?:\/(?!\.\.?(?:\/|$))[^/\0]+)+$/, 'expected an absolute path in the container like /app, without .. and not /');

const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'ids may contain letters, digits, ".", "_" and "-" and must start with a letter or digit');

const severity = z.enum(['info', 'warning', 'error', 'critical']);

// npm sources (src/domain/tasks/npm-source.ts): exact versions only, so every attempt starts from the same bytes.
const npmSpec = z
  .string()
  .regex(/^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*@\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/, 'expected name@exact.version, e.g. qs@6.12.2')
  .describe('An npm package at an exact version: name@1.2.3.');
const integrity = z
  .string()
  .regex(/^sha512-[A-Za-z0-9+/]{86}==$/, 'expected an SRI sha512 hash, sha512-… as `npm view NAME@VERSION dist.integrity` prints it')
  .describe("The tarball's SRI sha512 (npm view NAME@VERSION dist.integrity); the registry's answer must match it.");
const registry = z
  .string()
  .regex(/^https?:\/\/\S+$/, 'expected an http(s) URL')
  .describe('The npm registry to fetch from; default $npm_config_registry, else https://registry.npmjs.org.');
const packagePaths = z.array(relativePath).min(1).describe('Files or directories of the package, relative to its root (no .., not absolute).');

export const testsFromSchema = z
  .strictObject({ npm: npmSpec, integrity: integrity.optional(), paths: packagePaths })
  .describe("Files of a later version laid over the repo before setup: the task's tests, in the baseline the agent sees.");

export const repoSchema = z.union([
  z.strictObject({ path: relativePath.describe('A directory, relative to the task-set file.') }),
  z.strictObject({
    git: z.string().min(1).describe('Any git URL, file:// included. Cloned once into .crucible/cache.'),
    commit: z.string().min(4).describe('The commit (or tag) every attempt starts from.'),
  }),
  z.strictObject({
    npm: npmSpec,
    integrity: integrity.optional(),
    registry: registry.optional(),
  }),
]);

/** `tests.format` / `tests.report` (and held_out's): which report the command gives and where (docs/tasks.md#other-report-formats). */
const testFormat = z
  .enum(['junit', 'tap', 'go-json', 'cargo-json', 'pytest'])
  .optional()
  .describe(
    'The report the command gives: junit (default, a file), or a stream: tap, go-json (go test -json), cargo-json (libtest JSON), pytest (pytest -rA output).',
  );
const testReport = z
  .enum(['stdout', 'file'])
  .optional()
  .describe('Stream formats only: read the report from stdout (default) or from the file $CRUCIBLE_REPORT names, which code under test cannot print into.');

export const testsSchema = z.strictObject({
  kind: z.literal('junit').optional().describe('junit (the default): test cases from the report `format` names (JUnit unless set); see also kind: reward.'),
  command: z.string().min(1).describe('Shell command that runs the tests; runs in the sandbox without network.'),
  format: testFormat,
  report: testReport,
  junit: relativePath
    .optional()
    .describe('Where the command writes JUnit XML, relative to the workspace. Omit it and write to $CRUCIBLE_JUNIT, a path the agent cannot reach.'),
  fail_to_pass: z.array(z.string().min(1)).min(1).describe('Test ids that fail before the fix and must pass after it.'),
  pass_to_pass: z
    .union([z.literal('all_others'), z.array(z.string().min(1))])
    .default('all_others')
    .describe('Test ids that pass before and must still pass, or all_others.'),
  test_paths: z.array(z.string().min(1)).optional().describe('Globs of the files that define the tests; changes to them are tampering.'),
});

/**
 * A verifier whose result is one number, the reward, in a file it writes (Harbor's tests/test.sh).
 * Its files are held out like held-out tests; the reward file lies where the agent cannot write.
 */
export const rewardTestsSchema = z.strictObject({
  kind: z.literal('reward').describe('A verifier that writes a reward in [0, 1] to $CRUCIBLE_REWARD; PASS on exactly 1 (docs/tasks.md).'),
  command: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Shell command run in a fresh copy after the agent; writes the reward to $CRUCIBLE_REWARD (or reward.txt / reward.json in $CRUCIBLE_REWARD_DIR). Give command or exec.',
    ),
  exec: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe(
      "Instead of command: the program and its arguments, executed directly with no shell (a script's #! line picks its interpreter), as Harbor runs /tests/test.sh.",
    ),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string())
    .optional()
    .describe("Environment variables of the verifier's run (Harbor: TEST_DIR and [verifier] env)."),
  files: relativePath
    .optional()
    .describe('Directory (relative to the task-set file) laid over the workspace only for the verifier run: the agent never sees it.'),
  mount: containerPath
    .optional()
    .describe(
      'With files: an absolute path in the container (Harbor: /tests) where files is mounted read-only for the verifier run, instead of joining the workspace.',
    ),
  network: z
    .enum(['none', 'host'])
    .optional()
    .describe("The verifier's network: none (default) or host (it may download its tools). The agent never has more than the gateway."),
});

export const heldOutSchema = z.strictObject({
  path: relativePath.describe('Directory (relative to the task-set file) copied into the workspace after the agent stops.'),
  command: z.string().min(1),
  format: testFormat,
  report: testReport,
  junit: relativePath.optional(),
  required: z
    .boolean()
    .default(true)
    .describe(
      'Default true: every held-out test must appear and pass, or the attempt fails (held_out check at severity error). false: they are reported apart (info), and passes that fail them are counted as overfitting.',
    ),
});

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

/** `held_out_values`: a held-out check of values, compared by the harness (docs/tasks.md#held-out-values). */
export const heldOutValuesSchema = z.strictObject({
  runtime: z.enum(['python', 'node']).describe('The interpreter the calls run in: python (python3) or node.'),
  root: relativePath.optional().describe("Workspace-relative directory the called modules are imported from; default '.' (Python: a src layout names src)."),
  required: z
    .boolean()
    .default(true)
    .describe('Default true: a value that differs fails the attempt (held_out_values at severity error). false: reported apart (info).'),
  calls: z
    .array(
      z.strictObject({
        call: z
          .string()
          .min(3)
          .describe('Python: package.module:function (an attribute path after the colon). Node: path/to/module.js:export, relative to root.'),
        args: z.array(jsonValue).default([]).describe('Positional arguments, as JSON values.'),
        expect: jsonValue.describe('The value the call must return: compared by the harness, never shown to the sandbox.'),
      }),
    )
    .min(1),
});

const regexSource = z.string().min(1).refine(isRegExp, { message: 'not a valid regular expression' });

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** See docs/grading.md for what each check does and what the presets contain. */
export const policySchema = z.strictObject({
  preset: z
    .enum(['default', 'strict'])
    .optional()
    .describe('default, or strict: harsher severities, diff limits, forbidden CI/secret files, every secret preset.'),
  forbidden_paths: z.array(z.string().min(1)).optional().describe("Globs of files the agent must not change (added to the preset's)."),
  allowed_paths: z
    .array(z.string().min(1))
    .optional()
    .describe('Globs of the only files the agent may change (test files are judged by test_tampering instead).'),
  max_files_changed: z.number().int().positive().optional(),
  max_added_lines: z.number().int().nonnegative().optional(),
  max_deleted_lines: z.number().int().nonnegative().optional(),
  unsafe_commands: z.array(regexSource).optional().describe('Regular expressions over the command lines the agent ran, on top of the built-in rules.'),
  secrets: z
    .strictObject({
      paths: z.array(z.string().min(1)).optional().describe('Globs of files that are secrets by name (e.g. **/.env).'),
      literals: z.array(z.string().min(1)).optional().describe('Exact strings that must never appear in added lines (canaries, known secrets).'),
      presets: z
        .array(z.enum([...SECRET_PRESETS, 'all']))
        .optional()
        .describe('Built-in detectors to turn on: cloud-keys, private-keys, tokens, or all.'),
    })
    .optional(),
  severities: z
    .partialRecord(z.enum(CHECK_IDS), severity)
    .optional()
    .describe('Severity per check id: info (reported), warning (costs points), error or critical (fails the attempt).'),
});

export const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*([kmg]i?b?|b)?$/i;

const size = z
  .union([z.number().int().positive(), z.string().regex(SIZE_PATTERN, 'expected a size like 512m, 2g or a number of bytes')])
  .describe('Bytes as a number, or a string such as 500k, 512m, 2g.');

const count = z.number().int().positive();

export const limitsSchema = z.strictObject({
  agent_timeout: duration.optional(),
  test_timeout: duration.optional(),
  setup_timeout: duration.optional(),
  pids: count.optional().describe('Processes and threads one command may have alive at once (default 1024).'),
  memory: size.optional().describe('Memory of one command and all its processes (default 4g).'),
  cpu_time: duration.optional().describe('CPU time one command may use over all its processes (default: unlimited).'),
  file_size: size.optional().describe('Largest file a command may write (default 1g).'),
  workspace_disk: size.optional().describe('Size of the workspace while the agent works (default 4g).'),
  workspace_files: count.optional().describe('Files in the workspace while the agent works (default 300000).'),
  change_files: count.optional().describe('Files the agent may add, change or delete outside ignored paths (default 10000).'),
  change_size: size.optional().describe('Total size of the files the agent adds or changes (default 64m).'),
});

/**
 * A Docker image reference: `[registry[:port]/]name[:tag][@sha256:<64 hex>]`, names in lowercase
 * as Docker requires. Only a `@sha256:` digest pins content; a tag may move.
 */
export const IMAGE_REFERENCE_PATTERN =
  /^(?:[A-Za-z0-9.-]+(?::\d+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

const PLATFORM_PATTERN = /^[a-z0-9]+\/[a-z0-9_]+(?:\/[a-z0-9]+)?$/;

/** What both forms of `environment:` share: the platform, the container's limits, the pull policy. */
const environmentCommon = {
  platform: z
    .string()
    .regex(PLATFORM_PATTERN, 'expected os/arch[/variant], e.g. linux/amd64')
    .optional()
    .describe("os/arch[/variant] of the image, e.g. linux/amd64 (default: the engine's own)."),
  cpus: z.number().positive().optional().describe('CPUs the container may use (docker --cpus), e.g. 2 or 0.5.'),
  memory: size.optional().describe("Memory of the container; also each command's memory limit (overrides limits.memory)."),
  pids: count.optional().describe('Processes and threads alive at once in the container; also overrides limits.pids.'),
  storage: size.optional().describe("Size of the container's writable layer, where the storage driver supports a limit."),
  workdir: z
    .union([z.literal('image'), containerPath])
    .optional()
    .describe(
      "Container-native task: where its files live in the image (an absolute path, or image for the image's WORKDIR). They are copied into the workspace, which is mounted there for the agent and the tests.",
    ),
};

export const environmentSchema = z
  .union([
    z.strictObject({
      image: z
        .string()
        .regex(IMAGE_REFERENCE_PATTERN, 'expected an image reference like python:3.12-slim or name@sha256:<64 hex digits>')
        .describe('An image reference, looked up locally; pin content with @sha256:<digest>.'),
      pull: z
        .enum(['never', 'missing'])
        .optional()
        .describe('never (default, offline-friendly: a missing image is an error naming the fix) or missing (pull it when absent).'),
      ...environmentCommon,
    }),
    z.strictObject({
      dockerfile: relativePath.describe('A Dockerfile, relative to the task-set file; built locally once per content hash of its context.'),
      context: relativePath.optional().describe("The build context directory, relative to the task-set file (default: the Dockerfile's directory)."),
      build_args: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'build argument names are letters, digits and _'), z.string()).optional(),
      ...environmentCommon,
    }),
  ])
  .describe(
    "The image the task's setup, agent commands, tests and held-out tests run in (needs --sandbox docker): exactly one of image or dockerfile. See docs/environments.md.",
  );

export const metadataSchema = z.strictObject({
  category: z.string().optional(),
  difficulty: z.string().optional(),
  tags: z.array(z.string()).optional(),
});

export const oracleSchema = z.union([
  z.strictObject({
    patch: z.string().min(1).describe('A unified diff: a path relative to the task-set file, or the diff itself inline.'),
  }),
  z.strictObject({
    script: z
      .string()
      .min(1)
      .describe("A bash script run in the sandbox, in the workspace, like an agent's command: a path relative to the task-set file, or the script inline."),
  }),
  z
    .strictObject({ from_npm: npmSpec, integrity: integrity.optional(), paths: packagePaths })
    .describe("The fix as a later npm version has it: these paths' diff between repo.npm's version and this one (repo must be npm)."),
]);

export const taskSchema = z
  .strictObject({
    id: id.describe('Unique within the task set; used in attempt ids and paths.'),
    version: z
      .union([z.string().min(1), z.number()])
      .optional()
      .describe('Bump when the task changes; part of the attempt id.'),
    repo: repoSchema,
    repo_key: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The repository this task belongs to in the repo profile (e.g. github.com/org/project). Default: the git remote or root commit, else the package name, else the directory name.',
      ),
    instruction: z.string().min(1).optional(),
    instruction_file: relativePath.optional(),
    setup: z.array(z.string().min(1)).optional(),
    tests: z.discriminatedUnion('kind', [testsSchema, rewardTestsSchema]),
    tests_from: testsFromSchema.optional(),
    held_out: heldOutSchema.optional(),
    held_out_values: heldOutValuesSchema.optional(),
    oracle: oracleSchema.optional(),
    policy: policySchema.optional(),
    limits: limitsSchema.optional(),
    environment: environmentSchema.optional(),
    metadata: metadataSchema.optional(),
  })
  .refine((t) => (t.instruction === undefined) !== (t.instruction_file === undefined), {
    message: 'a task needs exactly one of instruction or instruction_file',
    path: ['instruction'],
  });

/** Everything a task may set except its identity; merged under each task (task wins, deeply; `repo` and `environment` wholesale). */
export const defaultsSchema = z.strictObject({
  repo: repoSchema.optional(),
  setup: z.array(z.string().min(1)).optional(),
  tests: testsSchema.partial().optional(),
  held_out: heldOutSchema.partial().optional(),
  policy: policySchema.optional(),
  limits: limitsSchema.optional(),
  /** Replaced wholesale by a task's own `environment`, never merged field by field. */
  environment: environmentSchema.optional(),
  metadata: metadataSchema.optional(),
});

/** Kept equal to REPORTER_NAMES in src/features/report/reporter.ts (a test checks); config imports nothing. */
export const REPORTER_NAMES_IN_CONFIG = ['json', 'markdown', 'html', 'sarif', 'junit', 'github'] as const;

export const reportersSchema = z
  .array(z.enum(REPORTER_NAMES_IN_CONFIG))
  .describe(
    'Reports written into each run directory; --reporter overrides. Default: markdown, html, sarif, junit (and github when GITHUB_STEP_SUMMARY is set).',
  );

export const taskSetSchema = z.strictObject({
  $schema: z.string().optional(),
  defaults: defaultsSchema.optional(),
  reporters: reportersSchema.optional(),
  agents: z
    .array(z.unknown())
    .optional()
    .describe('Agent profiles for --agent NAME[:model]; each overrides a built-in profile of the same name (docs/agents.md).'),
  tasks: z.array(z.unknown()).min(1).describe('The tasks; see the task definition.'),
});

/** The schema published for editors: tasks typed in full rather than as unknown. */
export const taskSetFileSchema = taskSetSchema.extend({
  agents: z.array(profileSchema).optional(),
  tasks: z.array(taskSchema).min(1),
});

export type TaskInput = z.input<typeof taskSchema>;
export type TaskParsed = z.output<typeof taskSchema>;
export type DefaultsParsed = z.output<typeof defaultsSchema>;
