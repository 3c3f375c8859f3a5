import { z } from 'zod';
import { reportersSchema } from '../../domain/config/index.js';

/** Names of task sets and suites become the prefix of task ids (`<set>/<task>`), so they follow the task-id rule. */
const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'names may contain letters, digits, ".", "_" and "-" and must start with a letter or digit');
const nonEmptyList = z.array(z.string().min(1)).min(1);

export const suiteTaskSetSchema = z
  .strictObject({
    path: z.string().min(1).describe('The task-set YAML file, relative to the suite file.'),
    name: name
      .optional()
      .describe("Prefix of this set's task ids (`<name>/<task-id>`) and its row in the per-task-set breakdown; default the file's name without .yaml."),
    tags: nonEmptyList.optional().describe('Only tasks with any of these tags.'),
    categories: nonEmptyList.optional().describe('Only tasks in one of these categories.'),
    difficulties: nonEmptyList.optional().describe('Only tasks of one of these difficulties.'),
    tasks: nonEmptyList.optional().describe('Only these task ids (as the task set spells them, without the prefix).'),
  })
  .describe('One task set of the suite, with optional filters (each given filter narrows, like --tag / --task).');

const agentEntry = z.union([
  z.string().min(1).describe('An agent spec as --agent takes it: oracle, nop, claude-code:<model>, anthropic:<model>, …'),
  z.strictObject({
    agent: z.string().min(1).describe('An agent spec as --agent takes it.'),
    runs: z.number().int().min(1).optional().describe("Attempts per task for this agent; default the suite's runs."),
  }),
]);

export const suiteSchema = z.strictObject({
  $schema: z.string().optional(),
  suite: name.describe('Marks the file as a suite (a task set has no `suite:` key) and names it in reports.'),
  description: z.string().optional(),
  task_sets: z.array(suiteTaskSetSchema).min(1).describe('The task sets run together as one run.'),
  agents: z.array(agentEntry).min(1).optional().describe('Agents to run on every task; --agent on the command line replaces this list.'),
  runs: z.number().int().min(1).optional().describe("Attempts per task and agent (default 1); --runs on the command line overrides it and every agent's runs."),
  reporters: reportersSchema.optional(),
});

export type SuiteParsed = z.output<typeof suiteSchema>;
