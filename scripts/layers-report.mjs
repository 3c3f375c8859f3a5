// Lists what `crucible/layers` would have to say about src/ all at once: every folder-level
// cycle (with the file imports that make it), every upward import and the deep imports per folder
// pair, each marked when an exception in eslint.config.js lifts it. `npm run lint` is the check;
// this is the map for fixing what it finds.  Usage: node scripts/layers-report.mjs
import path from 'node:path';
import { layers } from '../eslint.config.js';
import { crossFolderImports, folderCycles, isFolderEntry } from '../eslint-rules/import-graph.js';
import { compileOptions } from '../eslint-rules/layers.js';

const { root, layerOf, isExcepted, groups } = compileOptions(layers, process.cwd());
const rel = (file) => path.relative(root, file).split(path.sep).join('/');
const edges = crossFolderImports(root, groups);
const mark = (kind, e) => (isExcepted(kind, e.from, e.to, e.toFolder) ? '  [exception]' : '');

const cycles = folderCycles(edges);
console.log(`folder cycles: ${cycles.length}`);
for (const group of cycles) {
  console.log(`  ${group.join(' ')}`);
  const inside = edges.filter((x) => group.includes(x.fromFolder) && group.includes(x.toFolder));
  for (const pair of new Set(inside.map((e) => `${e.fromFolder} -> ${e.toFolder}`))) {
    const files = inside.filter((e) => `${e.fromFolder} -> ${e.toFolder}` === pair).map((e) => `${rel(e.from)} -> ${rel(e.to)}`);
    console.log(`    ${pair} (${files.length}): ${files[0]}${files.length > 1 ? ', …' : ''}`);
  }
}

const upward = edges.filter((e) => (layerOf.get(e.toFolder)?.rank ?? -1) > (layerOf.get(e.fromFolder)?.rank ?? -1));
console.log(`upward imports: ${upward.length}`);
for (const e of upward) console.log(`  ${rel(e.from)} -> ${rel(e.to)}${mark('upward', e)}`);

const deep = edges.filter((e) => !isFolderEntry(root, e.to, groups));
console.log(`deep imports: ${deep.length} of ${edges.length} cross-folder imports`);
const byPair = new Map();
for (const e of deep) {
  const key = `${e.fromFolder} -> ${e.toFolder}`;
  const row = byPair.get(key) ?? { count: 0, excepted: 0 };
  row.count++;
  if (mark('deep', e)) row.excepted++;
  byPair.set(key, row);
}
for (const [key, row] of [...byPair].sort()) console.log(`  ${key}: ${row.count}${row.excepted ? ` (${row.excepted} excepted)` : ''}`);
