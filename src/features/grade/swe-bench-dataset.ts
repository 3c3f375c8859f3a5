import { readFileSync } from 'node:fs';
import { InputError } from '../../core/errors.js';

/**
 * The instance ids of a SWE-bench dataset file (`--dataset`): what SWE-bench's report counts as
 * `total_instances`. The file SWE-bench publishes, as JSON Lines or a JSON array of instances;
 * only `instance_id` is read. Every problem is one InputError naming the file, the line and the fix.
 */
export function readDatasetIds(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputError(`--dataset ${file}: no such file (fix: give the SWE-bench dataset file, JSON Lines or a JSON array of instances)`);
  }
  const rows: Array<{ row: unknown; where: string }> = [];
  if (text.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new InputError(`${file}: not valid JSON (${(error as Error).message}) (fix: a JSON array of instances, or JSON Lines)`);
    }
    if (!Array.isArray(parsed)) throw new InputError(`${file}: expected a JSON array of instances (fix: [{"instance_id": …}, …])`);
    parsed.forEach((row, i) => rows.push({ row, where: `${file}[${i}]` }));
  } else {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const where = `${file}:${i + 1}`;
      try {
        rows.push({ row: JSON.parse(line), where });
      } catch (error) {
        throw new InputError(`${where}: not a JSON object (${(error as Error).message}) (fix: one instance object per line)`);
      }
    });
  }
  const ids: string[] = [];
  const seen = new Map<string, string>();
  for (const { row, where } of rows) {
    const id = typeof row === 'object' && row !== null ? (row as Record<string, unknown>).instance_id : undefined;
    if (typeof id !== 'string' || id === '')
      throw new InputError(`${where}: instance_id is missing or not a string (fix: every instance names its instance_id)`);
    const first = seen.get(id);
    if (first !== undefined) throw new InputError(`${where}: instance ${id} appears twice (first at ${first}) (fix: keep one)`);
    seen.set(id, where);
    ids.push(id);
  }
  if (ids.length === 0) throw new InputError(`--dataset ${file}: no instances in it (fix: give the dataset the predictions were made for)`);
  return ids;
}
