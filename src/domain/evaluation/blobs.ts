import { git } from '../../infra/workspace/index.js';

/** Git blob ids of each changed path, before (`old`) and after (`new`); a side that does not exist has none. */
export type ChangeBlobs = Record<string, { old?: string; new?: string }>;

const NO_BLOB = /^0+$/;

/** Reads the blob ids of every path that differs between two trees of the harness's store (no rename detection: paths as they are). */
export async function changeBlobs(gitDir: string, from: string, to: string): Promise<ChangeBlobs> {
  const out = await git({ gitDir }, ['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]);
  const fields = out.split('\0');
  const blobs: ChangeBlobs = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = (fields[i] ?? '').split(' ');
    const path = fields[i + 1] ?? '';
    const [oldId, newId] = [meta[2] ?? '', meta[3] ?? ''];
    blobs[path] = { ...(NO_BLOB.test(oldId) ? {} : { old: oldId }), ...(NO_BLOB.test(newId) ? {} : { new: newId }) };
  }
  return blobs;
}
