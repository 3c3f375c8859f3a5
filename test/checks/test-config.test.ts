import { describe, expect, it } from 'vitest';
import { matcher } from '../../src/domain/evidence/glob.js';
import { DEPENDENCY_PATHS, SECTIONED_TEST_CONFIG, testSection, tomlSection, WHOLE_FILE_TEST_CONFIG } from '../../src/domain/evidence/test-config.js';

const whole = matcher(WHOLE_FILE_TEST_CONFIG);
const sectioned = matcher(SECTIONED_TEST_CONFIG);
const dependency = matcher(DEPENDENCY_PATHS);

describe('test configuration paths', () => {
  it.each([
    'conftest.py',
    'pkg/sub/conftest.py',
    'pytest.ini',
    '.pytest.ini',
    'pytest.toml',
    'sub/.pytest.toml',
    'src/sitecustomize.py',
    'usercustomize.py',
    'vitest.config.ts',
    'packages/a/vitest.config.mts',
    'vitest.workspace.json',
    'vitest.projects.ts',
    'jest.config.cjs',
    'apps/web/jest.setup.js',
    '.mocharc.yml',
    'deep/.mocharc.json',
    '.c8rc.json',
    '.nycrc',
    'sub/.nycrc.yml',
    '.babelrc',
    'pkg/.babelrc.js',
    'babel.config.cjs',
    '.swcrc',
    '.npmrc',
    'packages/x/.npmrc',
    '.yarnrc.yml',
    'ava.config.mjs',
    '.taprc',
    'node.config.json',
    '.cargo/config.toml',
    'crates/a/.cargo/config',
  ])('%s is protected whole, at any depth', (path) => {
    expect(whole(path)).toBe(true);
  });

  it.each(['tsconfig.json', 'tsconfig.build.json', '.env', 'model.pth', 'src/app.py', 'src/pytest_helpers.py', 'Makefile', '.coveragerc'])(
    '%s is not test configuration',
    (path) => {
      expect(whole(path)).toBe(false);
      expect(sectioned(path)).toBe(false);
    },
  );

  it('sectioned files are matched at any depth', () => {
    for (const path of ['package.json', 'a/b/package.json', 'pyproject.toml', 'py/setup.cfg', 'tox.ini', 'web/vite.config.ts'])
      expect(sectioned(path)).toBe(true);
  });

  it.each([
    'node_modules/vitest/dist/index.js',
    'packages/a/node_modules/.bin/jest',
    '.venv/lib/python3.12/site-packages/_pytest/main.py',
    'venv/bin/pytest',
    'venv/lib/python3.11/site-packages/x.pth',
    'venv/pyvenv.cfg',
    'env/lib/python3.12/site-packages/easy-install.pth',
    '/usr/lib/python3/dist-packages/a.pth'.slice(1),
    'src/mypkg.egg-info/entry_points.txt',
    'mypkg-1.0.dist-info/entry_points.txt',
    'mypkg.egg-link',
    '.eggs/x.egg',
    '__pypackages__/3.12/lib/pytest/__init__.py',
    '.yarn/releases/yarn-4.1.0.cjs',
    '.pnp.cjs',
  ])('%s is a dependency location', (path) => {
    expect(dependency(path)).toBe(true);
  });

  it('a source directory that happens to be called venv is not a dependency location', () => {
    expect(dependency('src/hatch/venv/core.py')).toBe(false);
    expect(dependency('src/app.py')).toBe(false);
  });
});

describe('package.json test section', () => {
  const base = { name: 'x', version: '1.0.0', scripts: { test: 'vitest run', build: 'tsc' }, dependencies: { a: '^1' } };
  const section = (json: unknown): string | undefined => testSection('package.json', JSON.stringify(json, null, 2));

  it('ignores unrelated changes: dependencies, other scripts, formatting', () => {
    const before = section(base);
    expect(before).toBeDefined();
    expect(section({ ...base, dependencies: { a: '^1', b: '^2' }, scripts: { ...base.scripts, lint: 'eslint .' } })).toBe(before);
    expect(testSection('package.json', JSON.stringify(base))).toBe(before);
  });

  it('catches test scripts, test:* sub-scripts and runner keys', () => {
    const before = section(base);
    expect(section({ ...base, scripts: { ...base.scripts, test: 'exit 0' } })).not.toBe(before);
    expect(section({ ...base, scripts: { ...base.scripts, pretest: 'node hack.js' } })).not.toBe(before);
    expect(section({ ...base, scripts: { ...base.scripts, 'test:unit': 'true' } })).not.toBe(before);
    for (const key of ['jest', 'mocha', 'ava', 'vitest', 'c8', 'nyc', 'tap', 'babel']) expect(section({ ...base, [key]: { x: 1 } })).not.toBe(before);
    // subpath imports the tests use resolve through `imports`: redirecting one is test configuration
    expect(section({ ...base, imports: { '#helpers': './src/fake-helpers.js' } })).not.toBe(before);
  });

  it('has no section without test keys, and is whole when it does not parse', () => {
    expect(section({ name: 'x', scripts: { build: 'tsc' } })).toBeUndefined();
    expect(testSection('package.json', '{ not json')).toBe('{ not json');
    expect(testSection('package.json', '[1]')).toBe('[1]');
  });
});

describe('Cargo.toml and go.mod: what could replace a test dependency', () => {
  it('is the [patch] and [replace] tables of Cargo.toml, not its dependencies', () => {
    const base = '[package]\nname = "x"\n\n[dev-dependencies]\npretty_assertions = "1"\n';
    expect(testSection('Cargo.toml', base)).toBeUndefined();
    expect(testSection('Cargo.toml', `${base}serde = "1"\n`)).toBeUndefined();
    expect(testSection('Cargo.toml', `${base}\n[patch.crates-io]\npretty_assertions = { path = "fake" }\n`)).toContain('fake');
  });

  it('is the replace directives of go.mod, not its requirements', () => {
    const base = 'module example.com/x\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.9.0\n';
    expect(testSection('go.mod', base)).toBeUndefined();
    expect(testSection('go.mod', `${base}require golang.org/x/text v0.14.0\n`)).toBeUndefined();
    expect(testSection('go.mod', `${base}replace github.com/stretchr/testify => ./fake\n`)).toBe('replace github.com/stretchr/testify => ./fake');
    expect(testSection('go.mod', `${base}replace (\n\tgithub.com/stretchr/testify => ./fake // here\n)\n`)).toBe(
      'replace github.com/stretchr/testify => ./fake',
    );
  });
});

describe('pyproject.toml test section', () => {
  const base = [
    '[project]',
    'name = "demo"',
    'dependencies = [',
    '  "requests>=2",',
    ']',
    '',
    '[tool.pytest.ini_options]',
    'addopts = "-q"',
    'testpaths = ["tests"]',
    '',
    '[tool.black]',
    'line-length = 100',
  ].join('\n');
  const section = (text: string): string | undefined => testSection('pyproject.toml', text);

  it('keeps pytest keys and ignores a new dependency, comments and formatting', () => {
    const before = section(base);
    expect(before).toBe('[tool.pytest.ini_options]\ntool.pytest.ini_options.addopts = "-q"\ntool.pytest.ini_options.testpaths = ["tests"]');
    const unrelated = base
      .replace('  "requests>=2",', '  "requests>=2",\n  "numpy",  # new')
      .replace('line-length = 100', 'line-length = 120')
      .replace('testpaths = ["tests"]', 'testpaths = [ "tests" ]  # where tests live');
    expect(section(unrelated)).toBe(before);
  });

  it('catches a changed pytest option', () => {
    expect(section(base.replace('addopts = "-q"', 'addopts = "-q -p no:terminal"'))).not.toBe(section(base));
  });

  it('catches dotted keys at the top level and under [tool]', () => {
    const none = '[project]\nname = "demo"\n';
    expect(section(none)).toBeUndefined();
    expect(section(`tool.pytest.ini_options.addopts = "-x"\n${none}`)).toBe('tool.pytest.ini_options.addopts = "-x"');
    expect(section(`${none}[tool]\npytest.ini_options.addopts = "-x"\n`)).toBe('tool.pytest.ini_options.addopts = "-x"');
    expect(section(`${none}[tool . "pytest"]\nini_options = { addopts = '-x' }\n`)).toBe(
      '[tool.pytest]\ntool.pytest.ini_options = {}\ntool.pytest.ini_options.addopts = "-x"',
    );
  });

  it('catches inline tables, and only their pytest part', () => {
    const inline = 'tool = { black = { line-length = 100 }, pytest = { ini_options = { addopts = "-x" } } }\n';
    expect(section(inline)).toBe('tool.pytest = {}\ntool.pytest.ini_options = {}\ntool.pytest.ini_options.addopts = "-x"');
    expect(section(inline.replace('100', '120'))).toBe(section(inline));
  });

  it('catches multi-line arrays and strings that continue a kept key', () => {
    const arrays = '[tool.pytest.ini_options]\naddopts = [\n  "-q",\n  # comment\n  "--strict-markers",\n]\n';
    expect(section(arrays)).toBe('[tool.pytest.ini_options]\ntool.pytest.ini_options.addopts = ["-q","--strict-markers",]');
    expect(section(arrays.replace('"--strict-markers"', '"-p no:junitxml"'))).not.toBe(section(arrays));
    const strings = '[tool.pytest.ini_options]\naddopts = """\n-q\n--tb=short\n"""\nminversion = "8"\n';
    expect(section(strings)).toBe(
      '[tool.pytest.ini_options]\ntool.pytest.ini_options.addopts = "\\n-q\\n--tb=short\\n"\ntool.pytest.ini_options.minversion = "8"',
    );
    expect(section(strings.replace('--tb=short', '--tb=short\n-p fake'))).not.toBe(section(strings));
    // A ] or # inside a string does not end the value.
    expect(section('[tool.pytest.ini_options]\nmarkers = ["a: x ] # y", \'b\']\n')).toBe(
      '[tool.pytest.ini_options]\ntool.pytest.ini_options.markers = ["a: x ] # y","b"]',
    );
  });

  it('catches a pytest plugin entry point, however it is written', () => {
    const forms = [
      '[project.entry-points.pytest11]\nfake = "pkg.plugin"\n',
      '[project.entry-points."pytest11"]\nfake = "pkg.plugin"\n',
      '[project.entry-points]\npytest11 = { fake = "pkg.plugin" }\n',
      '[project]\nname = "x"\nentry-points.pytest11.fake = "pkg.plugin"\n',
      '[tool.poetry.plugins."pytest11"]\nfake = "pkg.plugin"\n',
    ];
    for (const form of forms) expect(section(form)).toMatch(/pytest11.*(\n.*)?fake = "pkg\.plugin"/);
    expect(section('[project.entry-points.console_scripts]\ndemo = "pkg:main"\n')).toBeUndefined();
    expect(section('[project.scripts]\ndemo = "pkg:main"\n')).toBeUndefined();
  });

  it('keeps an empty pytest table (it alone makes pytest use the file) and array tables', () => {
    expect(section('[tool.pytest.ini_options]\n')).toBe('[tool.pytest.ini_options]');
    expect(section('[[tool.pytest.x]]\na = 1\n[[tool.pytest.x]]\na = 2\n')).toBe(
      '[[tool.pytest.x]]\ntool.pytest.x.a = 1\n[[tool.pytest.x]]\ntool.pytest.x.a = 2',
    );
  });

  it('reads every TOML value form without giving up', () => {
    const text = [
      "title = 'literal \\ string'",
      'when = 1979-05-27 07:32:00Z',
      'pi = 3.14',
      'flags = [true, false, 1_000, -inf, 0x1F]',
      "raw = '''",
      "multi '' line",
      "'''",
      'esc = "quote \\" and \\\\ backslash"',
      'ml = """a \\""" b"""',
      'nested = [[1, 2], [{ a = 1 }]]',
      '"quoted key" = 1',
      '[tool.pytest.ini_options]',
      'python_files = "check_*.py" # trailing comment',
    ].join('\n');
    expect(section(text)).toBe('[tool.pytest.ini_options]\ntool.pytest.ini_options.python_files = "check_*.py"');
  });

  it('returns a file it cannot read whole', () => {
    const broken = '[tool.pytest.ini_options\naddopts = "-x"\n';
    expect(section(broken)).toBe(broken);
    expect(() => tomlSection('a = "unterminated\n', () => true)).toThrow(/unterminated/);
  });
});

describe('setup.cfg and tox.ini test sections', () => {
  const cfg = [
    '[metadata]',
    'name = demo',
    '',
    '[options]',
    'install_requires =',
    '    requests',
    '',
    '[options.entry_points]',
    'console_scripts =',
    '    demo = demo:main',
    '',
    '[tool:pytest]',
    'addopts = -q',
  ].join('\n');

  it('keeps [tool:pytest] and ignores a new dependency or console script', () => {
    const before = testSection('setup.cfg', cfg);
    expect(before).toBe('[tool:pytest]\naddopts = -q');
    const unrelated = cfg.replace('    requests', '    requests\n    numpy').replace('    demo = demo:main', '    demo = demo:main\n    other = demo:other');
    expect(testSection('setup.cfg', unrelated)).toBe(before);
    expect(testSection('setup.cfg', cfg.replace('addopts = -q', 'addopts = -q -p no:junitxml'))).not.toBe(before);
  });

  it('catches a pytest11 entry point with its continuation lines', () => {
    const plugin = cfg.replace('console_scripts =', 'pytest11 =\n    fake = demo.plugin\nconsole_scripts =');
    expect(testSection('setup.cfg', plugin)).toBe('[options.entry_points] pytest11 =\n  fake = demo.plugin\n[tool:pytest]\naddopts = -q');
    expect(testSection('setup.cfg', plugin.replace('fake = demo.plugin', 'fake = demo.other'))).not.toBe(testSection('setup.cfg', plugin));
  });

  it('tox.ini: only [pytest]', () => {
    const tox = '[tox]\nenvlist = py312\n\n[testenv]\ndeps = pytest\ncommands = pytest\n\n[pytest]\naddopts = -q\n';
    expect(testSection('tox.ini', tox)).toBe('[pytest]\naddopts = -q');
    expect(testSection('tox.ini', tox.replace('envlist = py312', 'envlist = py312,py313'))).toBe('[pytest]\naddopts = -q');
    expect(testSection('tox.ini', '[tox]\nenvlist = py312\n')).toBeUndefined();
  });
});

describe('vite.config test section', () => {
  it('counts only with a test block', () => {
    expect(testSection('vite.config.ts', 'export default { plugins: [] }')).toBeUndefined();
    const withTest = 'export default { test: { globals: true } }';
    expect(testSection('vite.config.ts', withTest)).toBe(withTest);
  });
});
