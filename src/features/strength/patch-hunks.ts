/**
 * A unified diff (`git diff` / `git apply` form) read as files and hunks, and written back with one
 * hunk's new side changed: how a mutant of the oracle's fix becomes a patch that applies in the
 * oracle's place. Only the lines a hunk adds are ever changed; context and removed lines stay as
 * they are, so the mutant applies wherever the oracle applies.
 */

export interface HunkLine {
  /** ' ' context, '+' added, '-' removed, '\\' a "No newline at end of file" marker. */
  kind: ' ' | '+' | '-' | '\\';
  text: string;
}

export interface Hunk {
  /** Index of the `@@` line in the patch's lines. */
  headerAt: number;
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  /** What follows the second `@@` (git's function context), kept as it was. */
  trailer: string;
  lines: HunkLine[];
}

export interface PatchFile {
  /** The `+++ b/…` path; undefined for a deleted file. */
  path: string | undefined;
  hunks: Hunk[];
}

export interface ParsedPatch {
  lines: string[];
  files: PatchFile[];
}

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

export function parsePatch(patch: string): ParsedPatch {
  const lines = patch.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const files: PatchFile[] = [];
  let file: PatchFile | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.startsWith('diff --git ')) {
      file = { path: undefined, hunks: [] };
      files.push(file);
      continue;
    }
    // A plain `diff -u` patch has no `diff --git` line: its `---`/`+++` pair starts the file.
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ') && (!file || file.hunks.length > 0)) {
      file = { path: undefined, hunks: [] };
      files.push(file);
      continue;
    }
    if (line.startsWith('+++ ') && file && file.hunks.length === 0) {
      const target = line.slice(4).replace(/\t.*$/, '');
      file.path = target === '/dev/null' ? undefined : target.replace(/^b\//, '');
      continue;
    }
    const header = HEADER.exec(line);
    if (!header || !file) continue;
    const hunk: Hunk = {
      headerAt: i,
      oldStart: Number(header[1]),
      oldCount: header[2] === undefined ? 1 : Number(header[2]),
      newStart: Number(header[3]),
      newCount: header[4] === undefined ? 1 : Number(header[4]),
      trailer: header[5] ?? '',
      lines: [],
    };
    // The header's counts say where the hunk ends: a body line may itself begin with `+++` or `@@`.
    let oldLeft = hunk.oldCount;
    let newLeft = hunk.newCount;
    while (i + 1 < lines.length && (oldLeft > 0 || newLeft > 0 || lines[i + 1]?.startsWith('\\'))) {
      const body = lines[++i] as string;
      const kind = (body === '' ? ' ' : body.charAt(0)) as HunkLine['kind'];
      if (kind === '\\') {
        hunk.lines.push({ kind, text: body.slice(1) });
        continue;
      }
      if (kind !== ' ' && kind !== '+' && kind !== '-') break;
      if (kind !== '+') oldLeft--;
      if (kind !== '-') newLeft--;
      hunk.lines.push({ kind, text: body.slice(1) });
    }
    file.hunks.push(hunk);
  }
  return { lines, files };
}

/** A hunk's new side: its context and added lines in order, each marked whether the patch added it. */
export function newSide(hunk: Hunk): Array<{ text: string; added: boolean }> {
  return hunk.lines.filter((l) => l.kind === ' ' || l.kind === '+').map((l) => ({ text: l.text, added: l.kind === '+' }));
}

/**
 * The patch with `hunk`'s new side replaced by `side`: one entry per line of the original new side,
 * each the line's new text or null to drop it (only added lines may change or go). The header's
 * new count follows, and so do the starts of the same file's later hunks.
 */
export function withNewSide(parsed: ParsedPatch, hunk: Hunk, side: ReadonlyArray<string | null>): string {
  const file = parsed.files.find((f) => f.hunks.includes(hunk)) as PatchFile;
  const dropped = side.filter((s) => s === null).length;
  const body: string[] = [];
  let k = 0;
  for (const line of hunk.lines) {
    if (line.kind === '-' || line.kind === '\\') {
      body.push(`${line.kind}${line.text}`);
      continue;
    }
    const text = side[k++];
    if (text === null) continue;
    body.push(`${line.kind}${text ?? line.text}`);
  }
  const header = (h: Hunk, newStart: number, newCount: number): string => `@@ -${h.oldStart},${h.oldCount} +${newStart},${newCount} @@${h.trailer}`;
  const out: string[] = [];
  for (let i = 0; i < parsed.lines.length; i++) {
    const later = file.hunks.find((h) => h.headerAt === i && h.headerAt > hunk.headerAt);
    if (i === hunk.headerAt) {
      out.push(header(hunk, hunk.newStart, hunk.newCount - dropped), ...body);
      i += hunk.lines.length;
      continue;
    }
    out.push(later ? header(later, later.newStart - dropped, later.newCount) : (parsed.lines[i] as string));
  }
  return `${out.join('\n')}\n`;
}
