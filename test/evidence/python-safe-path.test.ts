import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests } from '../../src/domain/evidence/run-tests.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** A repo whose tests import its root module `stats`, as `python -m pytest` allows, with one failing test. */
function repo(extra: Record<string, string>) {
  const root = tempDir();
  const d = { workspace: join(root, 'ws'), results: join(root, 'results'), home: join(root, 'home'), tmp: join(root, 'tmp') };
  for (const dir of Object.values(d)) mkdirSync(dir, { recursive: true });
  mkdirSync(join(d.workspace, 'tests'));
  writeFileSync(join(d.workspace, 'stats.py'), 'def double(x):\n    return x + x\n\ndef half(x):\n    return x  # the bug\n');
  writeFileSync(
    join(d.workspace, 'tests', 'test_stats.py'),
    'import json\nfrom stats import double, half\n\ndef test_double():\n    assert double(2) == 4\n\ndef test_half():\n    assert json.loads("1") == 1 and half(4) == 2\n',
  );
  for (const [path, text] of Object.entries(extra)) {
    mkdirSync(join(d.workspace, path, '..'), { recursive: true });
    writeFileSync(join(d.workspace, path), text);
  }
  return d;
}

const FORGE = `import os, sys
open(os.environ["CRUCIBLE_JUNIT"], "w").write('<testsuites><testsuite name="t"><testcase classname="tests.test_stats" name="test_half"/><testcase classname="tests.test_stats" name="test_double"/></testsuite></testsuites>')
sys.exit(0)
`;

async function verify(d: ReturnType<typeof repo>, kind: 'local' | 'bwrap' | 'docker') {
  const executor = createExecutor(kind, { writable: [d.workspace, d.results], hidden: [], readOnly: [], home: d.home, tmp: d.tmp });
  try {
    const { evidence } = await runTests({
      executor,
      workspace: d.workspace,
      command: 'python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT" tests',
      resultsDir: d.results,
      failToPass: ['tests.test_stats::test_half'],
      passToPass: ['tests.test_stats::test_double'],
      timeoutMs: 60_000,
    });
    return evidence;
  } finally {
    await executor.close();
  }
}

/** Root files shadowing the runner, its internals, a dependency of the runner and the standard library. */
const SHADOWS = [
  ['the runner', 'pytest.py'],
  ['the runner internals', '_pytest/__init__.py'],
  ['a dependency of the runner', 'pluggy/__init__.py'],
  ['the standard library', 'json.py'],
] as const;

describe.each(['local', 'bwrap', 'docker'] as const)('python verification runs in safe-path mode (%s)', (kind) => {
  it('a root module of the repo still imports: the working directory is on sys.path, last', async () => {
    const evidence = await verify(repo({}), kind);
    expect(evidence.passToPass.failing).toEqual([]);
    expect(evidence.failToPass.failing.map((f) => f.id)).toEqual(['tests.test_stats::test_half']);
  });

  // One run with every shadow at the root: any one imported before its real module forges the
  // report and exits 0, so test_half would pass; the real pytest ran only if none was.
  it(`root files shadowing ${SHADOWS.map(([what, path]) => `${what} (${path})`).join(', ')} are never imported before the real module`, async () => {
    const evidence = await verify(repo(Object.fromEntries(SHADOWS.map(([, path]) => [path, FORGE]))), kind);
    // The real pytest ran and the bug is still there.
    expect(evidence.failToPass.failing.map((f) => f.id)).toEqual(['tests.test_stats::test_half']);
    expect(evidence.passToPass.failing).toEqual([]);
  });
});
