import { rename, rm, writeFile } from 'node:fs/promises';

/** Writes to a temporary file and renames it over the target: readers see the old file or the new one. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, text);
  } catch (error) {
    // A write that fails after the open (a disk that fills mid-file) carries no path: name the file.
    await rm(tmp, { force: true }).catch(() => undefined);
    if (error instanceof Error && (error as NodeJS.ErrnoException).path === undefined) Object.assign(error, { path: file });
    throw error;
  }
  await rename(tmp, file);
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}
