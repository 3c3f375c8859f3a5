import { z } from 'zod';
import { CAUSES, CHECK_IDS, VERDICTS } from '../../core/types/index.js';

/** Semantic Versioning 2.0.0 (https://semver.org), the form pack indexes use too. */
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

const semver = z.string().regex(SEMVER, 'not a semantic version');
/** Family ids are stable names other people cite: the task-id rule, lowercase so they never differ by case alone. */
const familyId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'ids may contain lowercase letters, digits, ".", "_" and "-" and must start with a letter or digit');
const checkId = z.enum(CHECK_IDS);
const nonEmpty = z.array(z.string().min(1)).min(1);

export const agentContractSchema = z
  .strictObject({
    verdict: z.enum(VERDICTS).describe('The verdict every trial must end with.'),
    cause: z.enum(CAUSES).optional().describe('The cause every trial must end with; default: passed for PASS, any cause otherwise.'),
    must_pass: z
      .union([z.literal('all'), z.array(checkId).min(1)])
      .optional()
      .describe('Checks that must pass in every trial, or `all` (every check of the registry).'),
    must_fail: z.array(checkId).min(1).optional().describe('Checks that must fail in every trial.'),
  })
  .describe('What one reference agent must produce on every task of the family, in every trial.');

export const familySchema = z
  .strictObject({
    id: familyId.describe('Stable id of the family, cited in reports.'),
    version: semver.describe('Version of the family (semver): bump it when its tasks or contract change.'),
    description: z.string().optional(),
    tasks: nonEmpty.optional().describe('Task ids of the task set in this family.'),
    tags: nonEmpty.optional().describe('Tasks with any of these tags (metadata.tags) are in this family.'),
    contract: z
      .record(z.string(), agentContractSchema)
      .optional()
      .describe('Per reference agent (oracle, nop, tamper, …) what it must produce; oracle and nop default to the built-in contract.'),
  })
  .describe('A task family: tasks selected by id or tag, with one contract.');

export const registrySchema = z.strictObject({
  $schema: z.string().optional(),
  registry: familyId.describe('Name of the benchmark this registry describes.'),
  version: semver.describe('Version of the benchmark (semver).'),
  description: z.string().optional(),
  families: z.array(familySchema).min(1).describe('The task families; every task is in at most one.'),
});

export type RegistryParsed = z.output<typeof registrySchema>;
export type AgentContractParsed = z.output<typeof agentContractSchema>;
