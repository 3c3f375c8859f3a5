// `crucible/layers`: the import boundaries of src/ (docs/architecture.md, "Layers").
//
// A folder is the first path segment under the root. Its layer comes from the table in the
// rule's options (eslint.config.js is the one place it is written). For every relative import
// that crosses folders the rule checks, in this order:
//   upward — the imported folder's layer is above the importer's;
//   cycle  — same layer, and the imported folder already reaches the importer's (the graph is
//            read from the whole tree, so a circle is caught from whichever file is linted);
//   deep   — the import names a file other than the folder's index.ts.
// An exception names the importing file (a glob), the imported folder or file, the check it
// lifts and why; an excepted import is also left out of the cycle graph.
import path from 'node:path';
import { crossFolderImports, folderOf, folderPath, isFolderEntry, resolveSpecifier } from './import-graph.js';

/** A glob (`cli/**`, `trace/{record,replay}.ts`) as a RegExp over a root-relative path with `/` separators. */
function globRegExp(glob) {
  let body = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      body += '.*';
      i++;
    } else if (c === '*') body += '[^/]*';
    else if (c === '{') body += '(?:';
    else if (c === '}') body += ')';
    else if (c === ',' && body.lastIndexOf('(?:') > body.lastIndexOf(')')) body += '|';
    else body += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${body}$`);
}

function rel(root, file) {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Whether `exception` lifts `kind` for the import of `to` by `from` (root-relative paths). */
function excepts(exception, kind, from, to, toFolder) {
  if (exception.kind !== kind) return false;
  if (!globRegExp(exception.from).test(from)) return false;
  return exception.to === toFolder || globRegExp(exception.to).test(to);
}

export function compileOptions(options, cwd) {
  const root = path.resolve(cwd, options.root);
  const layerOf = new Map();
  // A layer with a `dir` keeps its folders in src/<dir>/: the tree shows the layers.
  const groups = options.layers.flatMap((layer) => (layer.dir ? [layer.dir] : []));
  options.layers.forEach((layer, rank) => {
    for (const name of layer.folders) {
      const folder = layer.dir ? `${layer.dir}/${name}` : name;
      if (layerOf.has(folder)) throw new Error(`crucible/layers: folder "${folder}" is in two layers`);
      layerOf.set(folder, { name: layer.name, rank });
    }
  });
  const exceptions = options.exceptions ?? [];
  const isExcepted = (kind, fromAbs, toAbs, toFolder) => exceptions.some((x) => excepts(x, kind, rel(root, fromAbs), rel(root, toAbs), toFolder));
  return { root, layerOf, isExcepted, groups };
}

// One graph per root and lint process: the cycle check needs the whole tree, not one file.
const graphs = new Map();
function sameLayerGraph(compiled) {
  const { root, layerOf, isExcepted, groups } = compiled;
  let graph = graphs.get(root);
  if (!graph) {
    graph = crossFolderImports(root, groups).filter(
      (e) =>
        layerOf.get(e.fromFolder)?.rank === layerOf.get(e.toFolder)?.rank && !['upward', 'cycle'].some((kind) => isExcepted(kind, e.from, e.to, e.toFolder)),
    );
    graphs.set(root, graph);
  }
  return graph;
}

const layerItem = {
  type: 'object',
  properties: { name: { type: 'string' }, dir: { type: 'string' }, folders: { type: 'array', items: { type: 'string' } } },
  required: ['name', 'folders'],
  additionalProperties: false,
};
const exceptionItem = {
  type: 'object',
  properties: {
    from: { type: 'string' },
    to: { type: 'string' },
    kind: { enum: ['upward', 'cycle', 'deep'] },
    until: { type: 'string' },
    why: { type: 'string' },
  },
  required: ['from', 'to', 'kind', 'why'],
  additionalProperties: false,
};

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Imports between src/ folders go only downward, never in a circle, and only through index.ts' },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          layers: { type: 'array', items: layerItem },
          exceptions: { type: 'array', items: exceptionItem },
        },
        required: ['root', 'layers'],
        additionalProperties: false,
      },
    ],
    messages: {
      unplaced: "folder '{{folder}}' is in no layer: add it to the crucible/layers table in eslint.config.js (and docs/architecture.md)",
      upward: "'{{from}}' ({{fromLayer}}) imports '{{to}}' ({{toLayer}}), a higher layer: move the shared piece down to the lowest folder that needs it",
      cycle:
        "'{{from}}' imports '{{toFolder}}', which already imports '{{fromFolder}}' ({{path}}): folders may not import each other in a circle; move the shared piece down",
      deep: "'{{from}}' imports '{{to}}' past its folder's entry: import '{{toFolder}}/index.ts' (export it there if it is missing)",
    },
  },
  create(context) {
    const compiled = compileOptions(context.options[0], context.cwd);
    const { root, layerOf, isExcepted, groups } = compiled;
    const file = context.filename;
    const fromFolder = folderOf(root, file, groups);
    if (fromFolder === undefined) return {};
    const fromLayer = layerOf.get(fromFolder);

    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      const to = resolveSpecifier(file, specifier);
      if (!to) return;
      const toFolder = folderOf(root, to, groups);
      if (toFolder === undefined || toFolder === fromFolder) return;
      const toLayer = layerOf.get(toFolder);
      if (!fromLayer || !toLayer) {
        context.report({ node, messageId: 'unplaced', data: { folder: fromLayer ? toFolder : fromFolder } });
        return;
      }
      const data = { from: rel(root, file), to: rel(root, to), fromFolder, toFolder, fromLayer: fromLayer.name, toLayer: toLayer.name };
      if (toLayer.rank > fromLayer.rank && !isExcepted('upward', file, to, toFolder)) {
        context.report({ node, messageId: 'upward', data });
      } else if (toLayer.rank === fromLayer.rank && !isExcepted('cycle', file, to, toFolder)) {
        const back = folderPath(sameLayerGraph(compiled), toFolder, fromFolder);
        if (back) context.report({ node, messageId: 'cycle', data: { ...data, path: [fromFolder, ...back].join(' → ') } });
      }
      if (!isFolderEntry(root, to, groups) && !isExcepted('deep', file, to, toFolder)) {
        context.report({ node, messageId: 'deep', data });
      }
    };
    const literal = (source) => (source && source.type === 'Literal' ? source.value : undefined);
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => check(node, literal(node.source)),
      TSImportType: (node) => check(node, literal(node.argument?.literal ?? node.argument)),
    };
  },
};
