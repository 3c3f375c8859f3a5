import { writeFile } from 'node:fs/promises';
import { baselineJsonSchema } from '../../features/baseline/index.js';
import { agentsJsonSchema, taskSetJsonSchema } from '../../domain/config/index.js';
import { ciJsonSchema } from '../../features/ci/index.js';
import { InputError } from '../../core/errors.js';
import { suiteJsonSchema } from '../../features/suite/index.js';
import type { CliIo } from '../io.js';

/**
 * `crucible schema [taskset|agents|suite|ci|baseline|registry|trust|pack-index]`: the task-set format,
 * the `--agents FILE` format, the suite format, crucible.ci.yaml's, a baseline file's, registry.yaml's,
 * a pack trust policy's or a pack index's. The last three load lazily: `schema` alone stays light.
 */
export async function schemaCommand(which: string | undefined, opts: { out?: string }, io: CliIo): Promise<void> {
  const kind = which ?? 'taskset';
  const schemas: Record<string, () => Record<string, unknown>> = {
    taskset: taskSetJsonSchema,
    agents: agentsJsonSchema,
    suite: suiteJsonSchema,
    ci: ciJsonSchema,
    baseline: baselineJsonSchema,
    registry: (await import('../../features/audit/index.js')).registryJsonSchema,
    trust: (await import('../../features/pack/index.js')).trustJsonSchema,
    'pack-index': (await import('../../features/pack/index.js')).packIndexJsonSchema,
  };
  const make = schemas[kind];
  if (!make) throw new InputError(`schema ${kind}: unknown schema (fix: use taskset, agents, suite, ci, baseline, registry, trust or pack-index)`);
  const text = `${JSON.stringify(make(), null, 2)}\n`;
  if (!opts.out) {
    io.stdout.write(text);
    return;
  }
  try {
    await writeFile(opts.out, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why: Record<string, string> = {
      ENOENT: 'its directory does not exist (fix: create the directory first, or pick another path)',
      EISDIR: 'is a directory (fix: name a file, e.g. --out taskset.schema.json)',
      ENOTDIR: 'a parent is a file (fix: pick another path)',
      EACCES: 'not writable (fix: pick a path you can write)',
      EPERM: 'not writable (fix: pick a path you can write)',
      EROFS: 'on a read-only file system (fix: pick a path you can write)',
    };
    if (code === undefined || !(code in why)) throw error;
    throw new InputError(`--out ${opts.out}: ${why[code]}`);
  }
}
