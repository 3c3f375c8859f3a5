import { writeFile } from 'node:fs/promises';
import { taskSetJsonSchema } from '../../config/index.js';

export async function schemaCommand(opts: { out?: string }): Promise<void> {
  const text = `${JSON.stringify(taskSetJsonSchema(), null, 2)}\n`;
  if (opts.out) await writeFile(opts.out, text);
  else process.stdout.write(text);
}
