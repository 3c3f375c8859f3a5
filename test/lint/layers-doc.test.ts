import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { layers } from '../../eslint.config.js';

// docs/architecture.md draws the layer table of eslint.config.js; these keep the two, and the
// module table, equal to each other and to the tree.
const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
const section = (title: string): string => {
  const start = doc.indexOf(`\n## ${title}\n`);
  expect(start, `docs/architecture.md has a "## ${title}" section`).toBeGreaterThan(0);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
};
const folderName = (entry: string): string => entry.replace(/\.ts$/, '');

describe('docs/architecture.md and crucible/layers', () => {
  it('the layer drawing is the rule’s table, highest layer first', () => {
    const block = /```\n([\s\S]*?)```/.exec(section('Layers'))?.[1] ?? '';
    const drawn = block
      .trim()
      .split('\n')
      .map((line) => {
        const [left = '', folders = ''] = line.split('│');
        const [, name = '', dir] = /^(.*?)\s*(?:src\/([\w-]+)\/)?\s*$/.exec(left) ?? [];
        return { name, ...(dir ? { dir } : {}), folders: folders.trim().split(/\s+/) };
      });
    expect(drawn).toEqual([...layers.layers].reverse());
  });

  it('the module table has one row per folder of src/, with the rule’s layer', () => {
    const layerOf = new Map(layers.layers.flatMap((l) => l.folders.map((f) => [l.dir ? `${l.dir}/${f}` : f, l.name] as const)));
    const rows = section('Modules')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()))
      .filter(([, folder = '']) => !folder.includes('(repo root)'))
      .map(([, folder = '', layer = '']) => ({ folder: folderName(folder.replace(/`/g, '').replace(/\/$/, '')), layer }));
    // A layer's directory holds its folders: the tree is read one level into each.
    const dirs = new Set(layers.layers.flatMap((l) => (l.dir ? [l.dir] : [])));
    const tree = readdirSync(new URL('../../src', import.meta.url)).flatMap((entry) =>
      dirs.has(entry) ? readdirSync(new URL(`../../src/${entry}`, import.meta.url)).map((f) => `${entry}/${folderName(f)}`) : [folderName(entry)],
    );
    expect(rows.map((r) => r.folder).sort()).toEqual([...new Set(tree)].sort());
    for (const row of rows) expect(row.layer, row.folder).toBe(layerOf.get(row.folder));
  });

  it('every row of the module table has the header’s three cells, so the table renders', () => {
    const table = section('Modules')
      .split('\n')
      .filter((line) => line.startsWith('|'));
    for (const line of table) expect(line.split(/(?<!\\)\|/).length - 2, line.slice(0, 40)).toBe(3);
  });
});
