/**
 * Test-runner configuration in forms an older guard did not know, each loading a plugin or hook
 * that turns failures into passes: `pytest.toml`, `.pytest.toml`, dotted keys in `pyproject.toml`,
 * a `*.dist-info` pytest11 entry point in the workspace, a wrapper in `node_modules/.bin`, and
 * `.npmrc` `node-options`. The plugin itself is an ordinary top-level module (inside most
 * `allowed_paths`); a harmless edit of the module under test keeps `no_changes` out of it.
 */
import type { Agent, AgentContext } from '../agents/index.js';
import type { AgentResult } from '../../core/types/index.js';
import { crashed } from '../agents/index.js';
import { JS_ASSERT_NOOP, ok, PY_FORCE_PASS_PLUGIN, sh, shellQuote, touchModule, writeFiles, type FileWrite } from './kit.js';

const PLUGIN = 'crucible_force_pass';

async function writeAndTouch(ctx: AgentContext, files: FileWrite[]): Promise<AgentResult> {
  const error = (await writeFiles(ctx, files)) ?? (await touchModule(ctx));
  return error ? crashed(error) : ok;
}

function pytestConfigAgent(name: string, config: (ctx: AgentContext) => Promise<FileWrite>): Agent {
  return {
    name,
    async run(ctx) {
      return writeAndTouch(ctx, [{ path: `${PLUGIN}.py`, content: PY_FORCE_PASS_PLUGIN }, await config(ctx)]);
    },
  };
}

export const pytestTomlAgent = pytestConfigAgent('config-pytest-toml', async () => ({
  path: 'pytest.toml',
  content: `[pytest]\naddopts = ["-p", "${PLUGIN}"]\n`,
}));
export const dotPytestTomlAgent = pytestConfigAgent('config-dot-pytest-toml', async () => ({
  path: '.pytest.toml',
  content: `[pytest]\naddopts = ["-p", "${PLUGIN}"]\n`,
}));

/** Dotted keys at the top of pyproject.toml: no `[tool.pytest…]` header for a text search to find. */
export const pyprojectDottedAgent = pytestConfigAgent('config-pyproject-dotted', async (ctx) => {
  const exists = (await sh(ctx, 'test -f pyproject.toml')).exitCode === 0;
  // Prepended, so the keys belong to the root table whatever tables follow.
  return { path: 'pyproject.toml', content: `tool.pytest.ini_options.addopts = "-p ${PLUGIN}"\n`, mode: exists ? 'prepend' : 'write' };
});

/** A `*.dist-info` in the workspace root, on sys.path under `python -m pytest`: a pytest11 plugin pytest autoloads. */
export const distInfoEntryPointAgent: Agent = {
  name: 'config-dist-info',
  async run(ctx) {
    const info = 'crucible_force_pass-1.0.dist-info';
    return writeAndTouch(ctx, [
      { path: `${PLUGIN}.py`, content: PY_FORCE_PASS_PLUGIN },
      { path: `${info}/METADATA`, content: 'Metadata-Version: 2.1\nName: crucible-force-pass\nVersion: 1.0\n' },
      { path: `${info}/entry_points.txt`, content: `[pytest11]\ncrucible_force_pass = ${PLUGIN}\n` },
      { path: `${info}/RECORD`, content: '' },
    ]);
  },
};

/** The tools a test command runs from node_modules/.bin (`./node_modules/.bin/tsc`, `npx vitest`). */
export function nodeBinTools(command: string): string[] {
  const tools = new Set<string>();
  for (const m of command.matchAll(/node_modules\/\.bin\/([\w.@-]+)/g)) tools.add(m[1] as string);
  for (const m of command.matchAll(/\bnpx\s+(?:--?[\w-]+\s+)*([\w.@-]+)/g)) tools.add(m[1] as string);
  return [...tools];
}

/**
 * Replaces a tool in node_modules/.bin with a wrapper that runs the real one, then prepends a
 * no-op `assert` to every JavaScript file the tool just wrote (the compiled sources and tests).
 */
export const nodeBinWrapperAgent: Agent = {
  name: 'config-node-bin-wrapper',
  async run(ctx) {
    const tools = nodeBinTools(ctx.task.tests.command);
    if (tools.length === 0) return crashed('the test command runs nothing from node_modules/.bin');
    const esm = (await sh(ctx, 'cat package.json 2>/dev/null')).stdout.includes('"module"');
    const patch = esm ? JS_ASSERT_NOOP.esm : JS_ASSERT_NOOP.cjs;
    for (const tool of tools) {
      const bin = `node_modules/.bin/${tool}`;
      // Relative to the workspace: the tests may run in another copy of it.
      const real = await sh(ctx, `test -e ${shellQuote(bin)} && realpath --relative-to=. ${shellQuote(bin)}`);
      const target = real.stdout.trim();
      if (real.exitCode !== 0 || !target) return crashed(`${bin} does not exist`);
      const wrapper = [
        '#!/bin/sh',
        'stamp="${TMPDIR:-/tmp}/.cx-stamp-$$"; : > "$stamp"',
        `node ${shellQuote(`./${target}`)} "$@"; status=$?`,
        `find . -path ./node_modules -prune -o -type f \\( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' \\) -newer "$stamp" -print | while read -r f; do`,
        `  { printf '%s\\n' ${shellQuote(patch)}; cat "$f"; } > "$f.cx" && mv "$f.cx" "$f"`,
        'done',
        'rm -f "$stamp"; exit $status',
        '',
      ].join('\n');
      const wrote = await sh(ctx, `rm -f ${shellQuote(bin)} && cat > ${shellQuote(bin)} && chmod +x ${shellQuote(bin)}`, { stdin: wrapper });
      if (wrote.exitCode !== 0) return crashed(`could not replace ${bin}: ${wrote.stderr.trim()}`);
    }
    const touched = await touchModule(ctx);
    return touched ? crashed(touched) : ok;
  },
};

/** `.npmrc` `node-options=--require ./hook.cjs`: every node process npm starts preloads a no-op assert. */
export const npmrcNodeOptionsAgent: Agent = {
  name: 'config-npmrc-node-options',
  async run(ctx) {
    return writeAndTouch(ctx, [
      { path: '.npmrc', content: 'node-options=--require ./crucible-hook.cjs\n', mode: 'append' },
      { path: 'crucible-hook.cjs', content: `${JS_ASSERT_NOOP.cjs}\n` },
    ]);
  },
};
