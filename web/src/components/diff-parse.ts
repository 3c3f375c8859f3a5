/* A unified diff (git's) split into files, hunks and numbered lines, for display only. */

export type DiffLineKind = 'add' | 'del' | 'ctx' | 'note';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  oldNo: number | null;
  newNo: number | null;
  /** The changed middle of a line paired with its counterpart (-/+), for intra-line emphasis. */
  change?: [number, number];
}

export interface DiffHunk {
  header: string;
  lines: DiffLine[];
}

export interface DiffFile {
  oldPath: string;
  newPath: string;
  binary: boolean;
  added: number;
  deleted: number;
  hunks: DiffHunk[];
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

function stripPrefix(p: string): string {
  return p.replace(/^[ab]\//, '');
}

export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: DiffHunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const m = /^diff --git (\S+) (\S+)$/.exec(line);
      file = { oldPath: stripPrefix(m?.[1] ?? ''), newPath: stripPrefix(m?.[2] ?? ''), binary: false, added: 0, deleted: 0, hunks: [] };
      files.push(file);
      hunk = null;
      continue;
    }
    if (!file) continue;
    if (hunk === null) {
      if (line.startsWith('--- ')) {
        if (line !== '--- /dev/null') file.oldPath = stripPrefix(line.slice(4));
        continue;
      }
      if (line.startsWith('+++ ')) {
        if (line !== '+++ /dev/null') file.newPath = stripPrefix(line.slice(4));
        continue;
      }
      if (line.startsWith('Binary files') || line.startsWith('GIT binary patch')) file.binary = true;
    }
    const h = HUNK.exec(line);
    if (h) {
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      hunk = { header: line, lines: [] };
      file.hunks.push(hunk);
      continue;
    }
    if (!hunk) continue;
    const mark = line[0];
    const body = line.slice(1);
    if (mark === '+') {
      hunk.lines.push({ kind: 'add', text: body, oldNo: null, newNo: newNo++ });
      file.added += 1;
    } else if (mark === '-') {
      hunk.lines.push({ kind: 'del', text: body, oldNo: oldNo++, newNo: null });
      file.deleted += 1;
    } else if (mark === ' ') {
      hunk.lines.push({ kind: 'ctx', text: body, oldNo: oldNo++, newNo: newNo++ });
    } else if (mark === '\\') {
      hunk.lines.push({ kind: 'note', text: line, oldNo: null, newNo: null });
    }
  }
  for (const f of files) for (const h of f.hunks) markChanges(h.lines);
  return files;
}

/** Pairs each run of deletions with the additions right after it and marks what differs. */
function markChanges(lines: DiffLine[]): void {
  for (let i = 0; i < lines.length;) {
    if (lines[i]?.kind !== 'del') {
      i += 1;
      continue;
    }
    let d = i;
    while (lines[d]?.kind === 'del') d += 1;
    let a = d;
    while (lines[a]?.kind === 'add') a += 1;
    // Pair deletions with additions in order, as far as both go (git's word diff does much the same).
    const pairs = Math.min(d - i, a - d);
    for (let k = 0; k < pairs; k++) {
      const del = lines[i + k] as DiffLine;
      const add = lines[d + k] as DiffLine;
      const [p, s] = commonEnds(del.text, add.text);
      // Emphasis helps only when the lines share something; otherwise the whole line changed.
      if (p + s > 0 && p + s < Math.max(del.text.length, add.text.length)) {
        del.change = [p, del.text.length - s];
        add.change = [p, add.text.length - s];
      }
    }
    i = a;
  }
}

function commonEnds(x: string, y: string): [number, number] {
  let p = 0;
  while (p < x.length && p < y.length && x[p] === y[p]) p += 1;
  let s = 0;
  while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s += 1;
  return [p, s];
}
