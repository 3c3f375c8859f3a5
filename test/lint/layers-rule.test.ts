import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import layersRule from '../../eslint-rules/layers.js';

// A tiny tree on disk (the cycle check reads the whole tree): low, peer-a and peer-b in the
// bottom layer (the peers import each other), high above them.
const fixture = fileURLToPath(new URL('../fixtures/layers', import.meta.url));

interface Exception {
  from: string;
  to: string;
  kind: 'upward' | 'cycle' | 'deep';
  why: string;
}

const FLAT_LAYERS = [
  { name: 'bottom', folders: ['low', 'peer-a', 'peer-b'] },
  { name: 'top', folders: ['high'] },
];

/** The rule's messages for `code` as the file `file` of the tree at `root`. */
function lintIn(
  root: string,
  layers: Array<{ name: string; dir?: string; folders: string[] }>,
  file: string,
  code: string,
  exceptions: Exception[] = [],
): string[] {
  const linter = new Linter({ cwd: root });
  const messages = linter.verify(
    code,
    [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { crucible: { rules: { layers: layersRule } } },
        rules: { 'crucible/layers': ['error', { root: 'src', layers, exceptions }] },
      },
    ],
    join(root, 'src', file),
  );
  return messages.map((m) => `${m.ruleId}: ${m.message}`);
}

function lint(file: string, code: string, exceptions: Exception[] = []): string[] {
  return lintIn(fixture, FLAT_LAYERS, file, code, exceptions);
}

describe('crucible/layers', () => {
  it('lets a folder import a lower layer through its index', () => {
    expect(lint('high/index.ts', "import { low } from '../low/index.js';\nexport const x = low;\n")).toEqual([]);
  });

  it('fails an upward import, naming both layers', () => {
    const messages = lint('low/index.ts', "import { high } from '../high/index.js';\nexport const x = high;\n");
    expect(messages).toEqual([expect.stringMatching(/^crucible\/layers: 'low\/index\.ts' \(bottom\) imports 'high\/index\.ts' \(top\), a higher layer/)]);
  });

  it('fails an import that closes a folder cycle, naming the circle', () => {
    const messages = lint('peer-a/index.ts', "import { b } from '../peer-b/index.js';\nexport const a = (): number => b();\n");
    expect(messages).toEqual([expect.stringContaining("imports 'peer-b', which already imports 'peer-a' (peer-a → peer-b → peer-a)")]);
  });

  it('fails a deep import past the folder index, the dynamic and type-only forms too', () => {
    for (const code of [
      "import { inner } from '../low/inner.js';\nexport const x = inner;\n",
      "export const x = import('../low/inner.js');\n",
      "import type { inner } from '../low/inner.js';\nexport type X = typeof inner;\n",
      "export { inner } from '../low/inner.js';\n",
    ]) {
      expect(lint('high/index.ts', code)).toEqual([expect.stringContaining("imports 'low/inner.ts' past its folder's entry: import 'low/index.ts'")]);
    }
  });

  it('lifts only the check an exception names, for the files it names', () => {
    const upward = "import { high } from '../high/index.js';\nexport const x = high;\n";
    const lifted: Exception = { from: 'low/**', to: 'high', kind: 'upward', why: 'test' };
    expect(lint('low/index.ts', upward, [lifted])).toEqual([]);
    expect(lint('low/index.ts', upward, [{ ...lifted, kind: 'deep' }])).toHaveLength(1);
    expect(lint('low/index.ts', upward, [{ ...lifted, from: 'peer-a/**' }])).toHaveLength(1);
  });

  it('fails a folder that is in no layer', () => {
    expect(lint('stray/index.ts', "import { low } from '../low/index.js';\nexport const x = low;\n")).toEqual([
      expect.stringContaining("folder 'stray' is in no layer"),
    ]);
  });
});

// A tree whose bottom layer keeps its folders in a directory of its own (src/core/util,
// src/core/lone.ts), as Crucible's layers do, under an ungrouped top layer (src/app).
const grouped = fileURLToPath(new URL('../fixtures/layers-grouped', import.meta.url));

function lintGrouped(file: string, code: string): string[] {
  const layers = [
    { name: 'core', dir: 'core', folders: ['util', 'lone'] },
    { name: 'top', folders: ['app'] },
  ];
  return lintIn(grouped, layers, file, code);
}

describe('crucible/layers with a layer kept in a directory', () => {
  it('names a folder by the layer directory and its own name, and lets the top import it through its index', () => {
    expect(
      lintGrouped('app/index.ts', "import { util } from '../core/util/index.js';\nimport { lone } from '../core/lone.js';\nexport const x = util + lone;\n"),
    ).toEqual([]);
  });

  it('fails a deep import into a grouped folder and an upward import out of one', () => {
    expect(lintGrouped('app/index.ts', "import { deep } from '../core/util/deep.js';\nexport const x = deep;\n")).toEqual([
      expect.stringContaining("imports 'core/util/deep.ts' past its folder's entry: import 'core/util/index.ts'"),
    ]);
    expect(lintGrouped('core/util/deep.ts', "import { app } from '../../app/index.js';\nexport const x = app;\n")).toEqual([
      expect.stringMatching(/'core\/util\/deep\.ts' \(core\) imports 'app\/index\.ts' \(top\), a higher layer/),
    ]);
  });

  it('fails a folder in a layer directory that the layer does not list', () => {
    expect(lintGrouped('core/stray/index.ts', "import { util } from '../util/index.js';\nexport const x = util;\n")).toEqual([
      expect.stringContaining("folder 'core/stray' is in no layer"),
    ]);
  });
});
