import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTests } from '../../src/domain/evidence/run-tests.js';
import { makeSentinelDir, removeSentinelDir } from '../../src/domain/evidence/python-sentinel.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import type { TestRunEvidence } from '../../src/core/types/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const sentinelDirs: string[] = [];
afterEach(async () => {
  for (const dir of sentinelDirs.splice(0)) await removeSentinelDir(dir);
});

const STATS = 'def double(x):\n    return x + x\n\ndef half(x):\n    return x  # the bug\n';
const TESTS = 'from stats import double, half\n\ndef test_double():\n    assert double(2) == 4\n\ndef test_half():\n    assert half(4) == 2\n';

/** A repo whose tests import its root module `stats`; `change` are the files the change adds or rewrites. */
function repo(change: Record<string, string>, extra: Record<string, string> = {}) {
  const root = tempDir();
  const d = { workspace: join(root, 'ws'), results: join(root, 'results'), home: join(root, 'home'), tmp: join(root, 'tmp') };
  for (const dir of Object.values(d)) mkdirSync(dir, { recursive: true });
  const files = { 'stats.py': STATS, 'tests/test_stats.py': TESTS, ...extra, ...change };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(d.workspace, path, '..'), { recursive: true });
    writeFileSync(join(d.workspace, path), text);
  }
  return { ...d, changeFiles: Object.keys(change) };
}

async function verify(d: ReturnType<typeof repo>, kind: 'local' | 'bwrap' | 'docker', command?: string): Promise<TestRunEvidence> {
  const dir = await makeSentinelDir();
  sentinelDirs.push(dir);
  const executor = createExecutor(kind, { writable: [d.workspace, d.results], hidden: [], readOnly: [dir], home: d.home, tmp: d.tmp });
  try {
    const { evidence } = await runTests({
      executor,
      workspace: d.workspace,
      command: command ?? 'python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT" tests',
      resultsDir: d.results,
      failToPass: ['tests.test_stats::test_half'],
      passToPass: ['tests.test_stats::test_double'],
      timeoutMs: 120_000,
      sentinel: { dir, changeFiles: d.changeFiles },
    });
    return evidence;
  } finally {
    await executor.close();
  }
}

const events = (e: TestRunEvidence): string[] => (e.sentinel?.findings ?? []).map((f) => `${f.event} ${f.file}`);

/** Honest code of the change: optional imports, gc.collect, logging, namedtuple, dataclasses, exec, a Python subprocess. */
const HONEST = `${STATS.replace('return x  # the bug', 'return x // 2')}
import collections, dataclasses, gc, logging, subprocess, sys, traceback, warnings
try:
    import numpy_is_not_here
except ImportError:
    numpy_is_not_here = None
Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass
class Box:
    size: int = 1


def tidy():
    gc.collect()
    logging.getLogger(__name__).info("tidy")
    warnings.warn("tidy", stacklevel=2)
    exec("value = 1")
    try:
        raise ValueError("x")
    except ValueError:
        traceback.format_exc()
    subprocess.run([sys.executable, "-c", "print(1)"], check=True)
    return Box(), Point(1, 2)


tidy()
`;

/** A test of the repository that uses gc and frames itself. */
const GC_TEST = 'import gc, sys\n\ndef test_gc():\n    gc.collect()\n    assert gc.get_objects()\n    assert sys._getframe() is not None\n';

/** Walks the heap for pytest's Config and registers a force-pass hook wrapper, its names written as adjacent literals. */
const HEAP = `${STATS}
def _walk():
    import gc
    try:
        import pytest
    except ImportError:
        return

    class Plugin:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            rep = outcome.get_result()
            setattr(rep, "out" "come", "passed")

    for obj in gc.get_objects():
        if type(obj).__name__ == "Con" "fig" and hasattr(obj, "plugin" "manager"):
            getattr(obj, "plugin" "manager").register(Plugin(), "walk")


_walk()
`;

/** A module the environment lacks, which copy and pickle probe for: rewrites the report at exit. */
const ORG = `import atexit, os


def _forge():
    path = os.environ.get("CRUCIBLE_" "JUNIT")
    if path:
        with open(path, "w") as handle:
            handle.write('<testsuites><testsuite name="t"><testcase classname="tests.test_stats" name="test_half"/><testcase classname="tests.test_stats" name="test_double"/></testsuite></testsuites>')
        os._exit(0)


atexit.register(_forge)
`;

describe.each(['local', 'bwrap', 'docker'] as const)('the Python sentinel (%s)', (kind) => {
  it('honest code of the change and a test that uses gc report nothing; the runner finished', async () => {
    const evidence = await verify(repo({ 'stats.py': HONEST }, { 'tests/test_gc.py': GC_TEST }), kind);
    expect(evidence.failToPass.failing).toEqual([]);
    expect(evidence.sentinel?.findings).toEqual([]);
    expect(evidence.sentinel?.runners).toBe(1);
    expect(evidence.sentinel?.processes).toBeGreaterThanOrEqual(2);
    expect(evidence.sentinel?.unfinished).toEqual([]);
  });

  it('python -m unittest imports the root module through its own loader, with no finding', async () => {
    const unit =
      'import unittest\n\nfrom stats import double\n\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n';
    const evidence = await verify(
      repo({ 'stats.py': HONEST }, { 'tests/__init__.py': '', 'tests/test_unit.py': unit }),
      kind,
      'python3 -m unittest -v tests.test_unit',
    );
    expect(evidence.outputTail).toMatch(/Ran 1 test/);
    expect(evidence.outputTail).not.toMatch(/Error/);
    expect(evidence.sentinel?.runners).toBe(1);
    expect(evidence.sentinel?.findings).toEqual([]);
  });

  it('the runner reached through the heap is reported with its file and line', async () => {
    const evidence = await verify(repo({ 'stats.py': HEAP }), kind);
    expect(events(evidence)).toContain('gc stats.py');
    expect(evidence.sentinel?.findings.find((f) => f.event === 'gc')?.line).toBeGreaterThan(0);
  });

  it('a module the environment lacks is never imported for the standard library from the repository', async () => {
    const evidence = await verify(repo({ 'org.py': ORG, '__pypy__.py': ORG, 'stats.py': `${STATS}\nimport copy, pickle\n` }), kind);
    expect(evidence.failToPass.failing.map((f) => f.id)).toEqual(['tests.test_stats::test_half']);
    expect(evidence.sentinel?.findings).toEqual([]);
  });

  it('the same module, put on sys.path by a root conftest as pytest does, is reported as imported from outside the repository', async () => {
    const evidence = await verify(
      repo({ 'org.py': ORG }, { 'conftest.py': 'import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\nimport pickle\n' }),
      kind,
    );
    const imports = evidence.sentinel?.findings.filter((f) => f.event === 'import') ?? [];
    expect(imports.map((f) => f.detail).join(' ')).toMatch(/org\.py/);
    // The importer is named: pickle, outside the repository.
    expect(imports[0]?.file).toMatch(/pickle\.py$/);
    // It rewrote the report at exit and left with os._exit: both seen.
    expect(events(evidence)).toContain('report-write org.py');
    expect(evidence.sentinel?.unfinished.length).toBe(1);
  });
});

describe.each(['local', 'bwrap'] as const)('the Python sentinel and the import system (%s)', (kind) => {
  const command = 'PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider --junitxml="$CRUCIBLE_JUNIT" tests';

  it('a module the change imports, compiled by the import system under its own name, is no finding', async () => {
    const stats = `import helper\n${STATS.replace('return x  # the bug', 'return helper.halve(x)')}`;
    const evidence = await verify(repo({ 'stats.py': stats }, { 'helper.py': 'def halve(x):\n    return x // 2\n' }), kind, command);
    expect(evidence.failToPass.failing).toEqual([]);
    expect(evidence.sentinel?.findings).toEqual([]);
  });

  it("code compiled under another file's name through a loader whose bytes are the change's is reported", async () => {
    const forge = `${STATS}
import importlib.machinery, os
class _L(importlib.machinery.SourceFileLoader):
    def get_data(self, path):
        return b"X = 1\\n"
_path = os.path.join(os.path.dirname(os.__file__), "json", "decoder.py")
_L("json.decoder", _path).get_code("json.decoder")
`;
    const evidence = await verify(repo({ 'stats.py': forge }), kind, command);
    expect(events(evidence)).toContain('compile stats.py');
  });

  it('frames that only name themselves source_to_code and get_code, with a real loader as self, are not the import system', async () => {
    const forge = `${STATS}
import importlib.machinery, os
_path = os.path.join(os.path.dirname(os.__file__), "json", "decoder.py")
_ns = {"compile": compile, "path": _path}
exec(compile("def source_to_code(data):\\n    return compile(data, path, 'exec')\\n", "<frozen importlib._bootstrap_external>", "exec"), _ns)
exec(compile("def get_code(self, f):\\n    return f(b'X = 1')\\n", "<frozen importlib._bootstrap_external>", "exec"), _ns)
_ns["get_code"](importlib.machinery.SourceFileLoader("json.decoder", _path), _ns["source_to_code"])
`;
    const evidence = await verify(repo({ 'stats.py': forge }), kind, command);
    expect(evidence.sentinel?.findings.map((f) => `${f.event} ${f.detail}`)).toContainEqual(
      expect.stringMatching(/^compile compiled code under another file's name: .*json\/decoder\.py$/),
    );
  });
});
