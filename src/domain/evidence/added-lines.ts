/**
 * The lines an attempt added, read from its diff.patch (`git diff --binary` against the baseline),
 * for scanners that must look at new content only. Binary files have no lines in a patch, and a
 * source file's patch lines need not be what its interpreter reads, so their new content is read
 * from the captured tree (never from the agent's workspace) and source is decoded as its language
 * does (evidence/source-text.ts). Whatever cannot be read completely makes the
 * scan `complete: false`: a scanner must then fail closed rather than pass on half the evidence.
 */
import { lstat, readFile } from 'node:fs/promises';
import type { DiffStats } from '../../core/types/index.js';
import { git, gitBytes } from '../../infra/workspace/index.js';
import { archiveNames, opaqueProblems, type OpaqueProblem } from './opaque-code.js';
import { decodeSource, sourceLanguage, type SourceProblem } from './source-text.js';

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
  /** Read as bytes (Latin-1), not as source text: a binary file that is not source. */
  binary: boolean;
  lines: AddedLine[];
  /** Source files: the whole new file, decoded as its language reads it. `whole`: `lines` are every line of it (git's patch did not show what the interpreter reads). */
  source?: { text: string; encoding: string; whole: boolean };
  /** What makes the file unreadable to a scan, or code no scan opens (a NUL byte, an undecodable encoding, an archive on an import path). */
  problems?: Array<SourceProblem | OpaqueProblem>;
}

export interface AddedLinesScan {
  files: AddedFile[];
  complete: boolean;
  /** Why the scan is incomplete, when it is. */
  incomplete?: string;
}

export const MAX_PATCH_BYTES = 64 * 1024 * 1024;
export const MAX_BINARY_BYTES = 8 * 1024 * 1024;
/** What one scan reads from the tree in all (source and binary files together). */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

export async function readAddedLines(patchFile: string, diff: DiffStats, source: TreeSource): Promise<AddedLinesScan> {
  const size = (await lstat(patchFile).catch(() => undefined))?.size;
  if (size === undefined) return incomplete(`diff patch missing: ${patchFile}`);
  if (size > MAX_PATCH_BYTES || diff.patch?.truncated) return incomplete(`diff patch is over the ${MAX_PATCH_BYTES}-byte scan limit`);

  const files = await parsePatch(patchFile);
  const scan: AddedLinesScan = { files: [...files.values()], complete: true };
  const fail = (reason: string): void => {
    scan.complete = false;
    scan.incomplete = reason;
  };
  // Read from the captured tree: what git shows in the patch is not always what the interpreter reads.
  const wanted = diff.files.filter((c) => c.kind !== 'deleted' && c.symlink === undefined && mustRead(c.path, c.binary));
  const { blobs, sizes } = await readBlobs(
    source,
    wanted.map((c) => c.path),
  );
  for (const change of wanted) {
    const blobSize = sizes.get(change.path);
    if (blobSize === undefined || blobs.has(change.path)) continue;
    // A text source file left unread keeps its patch lines; bytes git would not show fail closed.
    if (change.binary || !files.has(change.path)) {
      fail(
        blobSize > MAX_BINARY_BYTES
          ? `${change.binary ? 'binary ' : ''}file ${change.path} is ${blobSize} bytes, over the ${MAX_BINARY_BYTES}-byte scan limit`
          : `file ${change.path} is past the ${MAX_READ_BYTES}-byte limit of what one scan reads`,
      );
    }
  }
  const named = archiveNames([...files.values()].flatMap((f) => f.lines.map((l) => l.text)));
  for (const [path, bytes] of blobs) if (/\.pth$/i.test(path)) for (const n of archiveNames(bytes.toString('utf8').split(/\r?\n/))) named.add(n);

  for (const change of diff.files) {
    if (change.kind === 'deleted' || change.symlink !== undefined) continue;
    const bytes = blobs.get(change.path);
    const language = sourceLanguage(change.path);
    const opaque = opaqueProblems(change.path, bytes, language !== undefined, named);
    const patched = files.get(change.path);
    let file: AddedFile | undefined;
    if (language !== undefined && bytes !== undefined) {
      const decoded = decodeSource(language, bytes);
      const whole = change.binary || decoded.encoding !== 'utf-8' || (patched === undefined && change.added > 0);
      file = {
        path: change.path,
        binary: false,
        lines: whole ? linesOf(decoded.text) : (patched?.lines ?? []),
        source: { text: decoded.text, encoding: decoded.encoding, whole },
      };
      if (decoded.problems.length + opaque.length > 0) file.problems = [...decoded.problems, ...opaque];
    } else if (change.binary && bytes !== undefined) {
      file = { path: change.path, binary: true, lines: linesOf(binaryText(bytes)), ...(opaque.length > 0 ? { problems: opaque } : {}) };
    } else if (opaque.length > 0) {
      file = { path: change.path, binary: change.binary, lines: patched?.lines ?? [], problems: opaque };
    }
    if (file) {
      scan.files = scan.files.filter((f) => f.path !== change.path);
      scan.files.push(file);
    } else if (!change.binary && change.added > 0 && patched === undefined) {
      fail(`added lines of ${change.path} not found in the patch`);
    }
  }
  return scan;
}

/** Reads these paths' blobs in one `cat-file --batch` (a path with a newline alone), each up to MAX_BINARY_BYTES and MAX_READ_BYTES in all. */
async function readBlobs(source: TreeSource, paths: readonly string[]): Promise<{ blobs: Map<string, Buffer>; sizes: Map<string, number> }> {
  const target = { gitDir: source.gitDir };
  const sizes = new Map<string, number>();
  const ids = new Map<string, string>();
  const batchable = paths.filter((p) => !p.includes('\n'));
  if (batchable.length > 0) {
    const check = await git(target, ['cat-file', '--batch-check'], { stdin: `${batchable.map((p) => `${source.tree}:${p}`).join('\n')}\n` }).catch(() => '');
    check.split('\n').forEach((line, i) => {
      const [id, type, size] = line.split(' ');
      const path = batchable[i];
      if (path !== undefined && id && type === 'blob' && size !== undefined) {
        ids.set(path, id);
        sizes.set(path, Number(size));
      }
    });
  }
  for (const path of paths.filter((p) => p.includes('\n'))) {
    const id = (await git(target, ['rev-parse', '--verify', '--quiet', `${source.tree}:${path}`]).catch(() => '')).trim();
    const size = id ? Number((await git(target, ['cat-file', '-s', id]).catch(() => '')).trim() || Number.NaN) : Number.NaN;
    if (id && !Number.isNaN(size)) {
      ids.set(path, id);
      sizes.set(path, size);
    }
  }
  const chosen: string[] = [];
  let total = 0;
  for (const path of paths) {
    const size = sizes.get(path);
    if (size === undefined || size > MAX_BINARY_BYTES || total + size > MAX_READ_BYTES) continue;
    total += size;
    chosen.push(path);
  }
  const blobs = new Map<string, Buffer>();
  if (chosen.length === 0) return { blobs, sizes };
  const out = await gitBytes(target, ['cat-file', '--batch'], {
    stdin: `${chosen.map((p) => ids.get(p)).join('\n')}\n`,
    maxBuffer: total + chosen.length * 128 + 1024,
  });
  let at = 0;
  for (const path of chosen) {
    const headerEnd = out.indexOf(0x0a, at);
    if (headerEnd < 0) break;
    const size = Number(out.subarray(at, headerEnd).toString('utf8').split(' ')[2]);
    if (!Number.isInteger(size)) break;
    blobs.set(path, out.subarray(headerEnd + 1, headerEnd + 1 + size));
    at = headerEnd + 1 + size + 1;
  }
  return { blobs, sizes };
}

/** Source by extension, git's binary files, and whatever could put code on an import path. */
function mustRead(path: string, binary: boolean): boolean {
  return binary || sourceLanguage(path) !== undefined || /\.(?:pth|pyz|pyzw|egg|whl|zip)$/i.test(path);
}

function linesOf(text: string): AddedLine[] {
  return text.split('\n').map((t, i) => ({ line: i + 1, text: t }));
}

/**
 * Latin-1 keeps every byte as one character, so ASCII secrets inside binaries stay findable; a
 * UTF-16 or UTF-32 text (which git calls binary for its NUL bytes) is read in its own encoding.
 */
function binaryText(bytes: Buffer): string {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return decodeSource('python', bytes).text;
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return decodeSource('python', bytes).text;
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return decodeSource('python', bytes).text;
  return bytes.toString('latin1');
}

function incomplete(reason: string): AddedLinesScan {
  return { files: [], complete: false, incomplete: reason };
}

/**
 * Walks hunks by their line counts, so an added line that starts with `+++` is still a line. Lines
 * end at `\n` only, as git counts them: a lone `\r` inside an added line (a line break to Python) must
 * not shift the hunk and drop what follows it from the scan.
 */
async function parsePatch(patchFile: string): Promise<Map<string, AddedFile>> {
  const files = new Map<string, AddedFile>();
  const lines = (await readFile(patchFile, 'utf8')).split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  let current: AddedFile | undefined;
  let oldLeft = 0;
  let newLeft = 0;
  let newLine = 0;
  for (const line of lines) {
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
