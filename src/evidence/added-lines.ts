/**
 * The lines an attempt added, read from its diff.patch (`git diff --binary` against the baseline),
 * for scanners that must look at new content only. Binary files have no lines in a patch, so their
 * new content is read from the captured tree instead (never from the agent's workspace). Whatever cannot be read completely makes the
 * scan `complete: false`: a scanner must then fail closed rather than pass on half the evidence.
 */
import { createReadStream } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { DiffStats } from '../types/index.js';
import { git, gitBytes } from '../workspace/index.js';

/** A tree in a git object store: where new file content is read from. */
export interface TreeSource {
  gitDir: string;
  tree: string;
}

export interface AddedLine {
  /** 1-based line number in the new file. */
  line: number;
  text: string;
}

export interface AddedFile {
  path: string;
  binary: boolean;
  lines: AddedLine[];
}

export interface AddedLinesScan {
  files: AddedFile[];
  complete: boolean;
  /** Why the scan is incomplete, when it is. */
  incomplete?: string;
}

export const MAX_PATCH_BYTES = 64 * 1024 * 1024;
export const MAX_BINARY_BYTES = 8 * 1024 * 1024;

export async function readAddedLines(patchFile: string, diff: DiffStats, source: TreeSource): Promise<AddedLinesScan> {
  const size = (await lstat(patchFile).catch(() => undefined))?.size;
  if (size === undefined) return incomplete(`diff patch missing: ${patchFile}`);
  if (size > MAX_PATCH_BYTES || diff.patch?.truncated) return incomplete(`diff patch is over the ${MAX_PATCH_BYTES}-byte scan limit`);

  const files = await parsePatch(patchFile);
  const scan: AddedLinesScan = { files: [...files.values()], complete: true };
  for (const change of diff.files) {
    if (change.kind === 'deleted' || !change.binary) continue;
    const object = `${source.tree}:${change.path}`;
    const blobSize = Number((await git({ gitDir: source.gitDir }, ['cat-file', '-s', object]).catch(() => '')).trim() || Number.NaN);
    if (Number.isNaN(blobSize)) continue;
    if (blobSize > MAX_BINARY_BYTES) {
      scan.complete = false;
      scan.incomplete = `binary file ${change.path} is ${blobSize} bytes, over the ${MAX_BINARY_BYTES}-byte scan limit`;
      continue;
    }
    // Latin-1 keeps every byte as one character, so ASCII secrets inside binaries stay findable.
    const text = (await gitBytes({ gitDir: source.gitDir }, ['cat-file', 'blob', object])).toString('latin1');
    const lines = text.split('\n').map((t, i) => ({ line: i + 1, text: t }));
    scan.files = scan.files.filter((f) => f.path !== change.path);
    scan.files.push({ path: change.path, binary: true, lines });
  }
  for (const change of diff.files) {
    if (change.kind !== 'deleted' && !change.binary && change.added > 0 && !files.has(change.path)) {
      scan.complete = false;
      scan.incomplete = `added lines of ${change.path} not found in the patch`;
    }
  }
  return scan;
}

function incomplete(reason: string): AddedLinesScan {
  return { files: [], complete: false, incomplete: reason };
}

/** Walks hunks by their line counts, so an added line that starts with `+++` is still a line. */
async function parsePatch(patchFile: string): Promise<Map<string, AddedFile>> {
  const files = new Map<string, AddedFile>();
  const input = createReadStream(patchFile, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let current: AddedFile | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  let newLine = 0;
  for await (const line of lines) {
    if (oldLeft > 0 || newLeft > 0) {
      const tag = line.charAt(0);
      if (tag === '+') {
        current?.lines.push({ line: newLine, text: line.slice(1) });
        newLine++;
        newLeft--;
      } else if (tag === '-') {
        oldLeft--;
      } else if (tag === '\\') {
        // "\ No newline at end of file"
      } else {
        newLine++;
        newLeft--;
        oldLeft--;
      }
      continue;
    }
    if (line.startsWith('diff --git ')) {
      current = undefined;
    } else if (line.startsWith('+++ ')) {
      const path = patchPath(line.slice(4));
      if (path !== undefined) {
        current = files.get(path) ?? { path, binary: false, lines: [] };
        files.set(path, current);
      }
    } else if (line.startsWith('@@ ')) {
      const hunk = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (hunk) {
        oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
        newLine = Number(hunk[2]);
        newLeft = hunk[3] === undefined ? 1 : Number(hunk[3]);
      }
    }
  }
  return files;
}

/** `b/src/a.ts` or git's C-quoted `"b/odd\tname"`; `/dev/null` is no file. */
function patchPath(raw: string): string | undefined {
  const text = raw.replace(/\t$/, '');
  if (text === '/dev/null') return undefined;
  const unquoted = text.startsWith('"') ? unquote(text) : text;
  return unquoted.startsWith('b/') ? unquoted.slice(2) : unquoted;
}

function unquote(quoted: string): string {
  const body = quoted.slice(1, -1);
  const bytes: number[] = [];
  const escapes: Record<string, number> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body.charAt(i);
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body.charAt(i + 1);
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
