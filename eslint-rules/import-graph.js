// The import graph of a source tree, read the way the `crucible/layers` rule needs it: every
// relative import of every .ts file, resolved to a file, and the folder (first path segment
// under the root) on each side. Shared by the rule (for its cycle check) and by
// scripts/layers-report.mjs (which lists every violation at once).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Every .ts file under `root`, absolute. */
export function listSourceFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.ts')) out.push(full);
    }
  };
  walk(root);
  return out.sort();
}

/** The module specifiers a file's text imports or re-exports, static and dynamic. */
export function specifiersOf(text) {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

function isFile(p) {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A relative specifier resolved to the .ts file it names, or undefined (a package, or missing). */
export function resolveSpecifier(fromFile, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && isFile(c));
}

/**
 * The folder a file belongs to: the first path segment under `root`, or the first two when the
 * first is one of `groups` (the layers' directories: `core/types`). A file directly under the
 * root or a group directory (`index.ts`, `core/errors.ts`) is a folder of its own, named without
 * the extension.
 */
export function folderOf(root, file, groups = []) {
  const rel = path.relative(root, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const parts = rel.split(path.sep);
  const depth = groups.includes(parts[0]) && parts.length > 1 ? 2 : 1;
  const name = parts.slice(0, depth).join('/');
  return parts.length === depth ? name.replace(/\.ts$/, '') : name;
}

/** True when `file` is its folder's public entry: `<folder>/index.ts`, or a file that is a folder of its own. */
export function isFolderEntry(root, file, groups = []) {
  const parts = path.relative(root, file).split(path.sep);
  const depth = groups.includes(parts[0]) && parts.length > 1 ? 2 : 1;
  return parts.length === depth || (parts.length === depth + 1 && parts[depth] === 'index.ts');
}

/** Every cross-folder import under `root`: `{ from, to, fromFolder, toFolder }`, files absolute. */
export function crossFolderImports(root, groups = []) {
  const edges = [];
  for (const from of listSourceFiles(root)) {
    const fromFolder = folderOf(root, from, groups);
    for (const specifier of specifiersOf(readFileSync(from, 'utf8'))) {
      const to = resolveSpecifier(from, specifier);
      if (!to) continue;
      const toFolder = folderOf(root, to, groups);
      if (toFolder === undefined || toFolder === fromFolder) continue;
      edges.push({ from, to, fromFolder, toFolder, specifier });
    }
  }
  return edges;
}

/** Strongly connected folder groups of more than one folder (each is a cycle), sorted. */
export function folderCycles(edges) {
  const adj = new Map();
  for (const e of edges) {
    if (!adj.has(e.fromFolder)) adj.set(e.fromFolder, new Set());
    if (!adj.has(e.toFolder)) adj.set(e.toFolder, new Set());
    adj.get(e.fromFolder).add(e.toFolder);
  }
  // Tarjan's algorithm.
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of [...adj.keys()].sort()) if (!idx.has(v)) visit(v);
  return groups.sort((a, b) => a[0].localeCompare(b[0]));
}

/** A shortest folder path from `start` to `goal` over `edges`, or undefined. */
export function folderPath(edges, start, goal) {
  const adj = new Map();
  for (const e of edges) {
    if (!adj.has(e.fromFolder)) adj.set(e.fromFolder, new Set());
    adj.get(e.fromFolder).add(e.toFolder);
  }
  const prev = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    if (v === goal) {
      const out = [];
      for (let c = goal; c !== undefined; c = prev.get(c)) out.unshift(c);
      return out;
    }
    for (const w of adj.get(v) ?? []) {
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return undefined;
}
