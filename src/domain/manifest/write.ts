import { rename, writeFile } from 'node:fs/promises';
import { canonicalJson, sha256Hex } from './canonical.js';

/** A manifest's bytes: canonical JSON (sorted keys), indented for people, one trailing newline. */
export function manifestText(manifest: unknown): string {
  return `${canonicalJson(manifest, 2)}\n`;
}

/** Writes the manifest atomically (a reader sees the old file or the new one) and returns its SHA-256. */
export async function writeManifestFile(file: string, manifest: unknown): Promise<string> {
  const text = manifestText(manifest);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
  return sha256Hex(text);
}
