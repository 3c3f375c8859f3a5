/**
 * Top-level module names a test process resolves from outside the repository, which a module of
 * the agent's change must never take the place of (checks/module-shadowing.ts).
 *
 * The standard library: `sys.stdlib_module_names` of CPython 3.11, with the names older and newer
 * versions add or drop. Left out: `test` (CPython's own regression suite, imported by nothing a
 * project runs, and the name of many projects' test directory), `this`, `antigravity`, `__hello__`,
 * `__phello__`, `idlelib`, `turtledemo`.
 */
// prettier-ignore
export const PYTHON_STDLIB_NAMES: ReadonlySet<string> = new Set([
  '__future__', '_abc', '_aix_support', '_android_support', '_apple_support', '_ast', '_asyncio', '_bisect',
  '_blake2', '_bootlocale', '_bootsubprocess', '_bz2', '_codecs', '_codecs_cn', '_codecs_hk',
  '_codecs_iso2022', '_codecs_jp', '_codecs_kr', '_codecs_tw', '_collections', '_collections_abc',
  '_colorize', '_compat_pickle', '_compression', '_contextvars', '_crypt', '_csv', '_ctypes', '_curses',
  '_curses_panel', '_datetime', '_dbm', '_decimal', '_dummy_thread', '_elementtree', '_frozen_importlib',
  '_frozen_importlib_external', '_functools', '_gdbm', '_hashlib', '_heapq', '_hmac', '_imp',
  '_interpchannels', '_interpqueues', '_interpreters', '_io', '_ios_support', '_json', '_locale', '_lsprof',
  '_lzma', '_markupbase', '_md5', '_msi', '_multibytecodec', '_multiprocessing', '_opcode',
  '_opcode_metadata', '_operator', '_osx_support', '_overlapped', '_pickle', '_posixshmem',
  '_posixsubprocess', '_py_abc', '_pydatetime', '_pydecimal', '_pyio', '_pylong', '_pyrepl', '_queue',
  '_random', '_remote_debugging', '_scproxy', '_sha1', '_sha2', '_sha256', '_sha3', '_sha512', '_signal',
  '_sitebuiltins', '_socket', '_sqlite3', '_sre', '_ssl', '_stat', '_statistics', '_string', '_strptime',
  '_struct', '_suggestions', '_symtable', '_sysconfig', '_testcapi', '_testinternalcapi', '_thread',
  '_threading_local', '_tkinter', '_tokenize', '_tracemalloc', '_types', '_typing', '_uuid', '_warnings',
  '_weakref', '_weakrefset', '_winapi', '_zoneinfo', '_zstd', 'abc', 'aifc', 'annotationlib', 'antigravity',
  'argparse', 'array', 'ast', 'asynchat', 'asyncio', 'asyncore', 'atexit', 'audioop', 'base64', 'bdb',
  'binascii', 'binhex', 'bisect', 'builtins', 'bz2', 'cProfile', 'calendar', 'cgi', 'cgitb', 'chunk',
  'cmath', 'cmd', 'code', 'codecs', 'codeop', 'collections', 'colorsys', 'compileall', 'compression',
  'concurrent', 'configparser', 'contextlib', 'contextvars', 'copy', 'copyreg', 'crypt', 'csv', 'ctypes',
  'curses', 'dataclasses', 'datetime', 'dbm', 'decimal', 'difflib', 'dis', 'distutils', 'doctest',
  'dummy_threading', 'email', 'encodings', 'ensurepip', 'enum', 'errno', 'faulthandler', 'fcntl', 'filecmp',
  'fileinput', 'fnmatch', 'formatter', 'fractions', 'ftplib', 'functools', 'gc', 'genericpath', 'getopt',
  'getpass', 'gettext', 'glob', 'graphlib', 'grp', 'gzip', 'hashlib', 'heapq', 'hmac', 'html', 'http',
  'idlelib', 'imaplib', 'imghdr', 'imp', 'importlib', 'inspect', 'io', 'ipaddress', 'itertools', 'json',
  'keyword', 'lib2to3', 'linecache', 'locale', 'logging', 'lzma', 'macpath', 'mailbox', 'mailcap', 'marshal',
  'math', 'mimetypes', 'mmap', 'modulefinder', 'msilib', 'msvcrt', 'multiprocessing', 'netrc', 'nis',
  'nntplib', 'nt', 'ntpath', 'nturl2path', 'numbers', 'opcode', 'operator', 'optparse', 'os', 'ossaudiodev',
  'parser', 'pathlib', 'pdb', 'pickle', 'pickletools', 'pipes', 'pkgutil', 'platform', 'plistlib', 'poplib',
  'posix', 'posixpath', 'pprint', 'profile', 'pstats', 'pty', 'pwd', 'py_compile', 'pyclbr', 'pydoc',
  'pydoc_data', 'pyexpat', 'queue', 'quopri', 'random', 're', 'readline', 'reprlib', 'resource',
  'rlcompleter', 'runpy', 'sched', 'secrets', 'select', 'selectors', 'shelve', 'shlex', 'shutil', 'signal',
  'site', 'smtpd', 'smtplib', 'sndhdr', 'socket', 'socketserver', 'spwd', 'sqlite3', 'sre_compile',
  'sre_constants', 'sre_parse', 'ssl', 'stat', 'statistics', 'string', 'stringprep', 'struct', 'subprocess',
  'sunau', 'symbol', 'symtable', 'sys', 'sysconfig', 'syslog', 'tabnanny', 'tarfile', 'telnetlib',
  'tempfile', 'termios', 'textwrap', 'this', 'threading', 'time', 'timeit', 'tkinter', 'token', 'tokenize',
  'tomllib', 'trace', 'traceback', 'tracemalloc', 'tty', 'turtle', 'turtledemo', 'types', 'typing',
  'unicodedata', 'unittest', 'urllib', 'uu', 'uuid', 'venv', 'warnings', 'wave', 'weakref', 'webbrowser',
  'winreg', 'winsound', 'wsgiref', 'xdrlib', 'xml', 'xmlrpc', 'zipapp', 'zipfile', 'zipimport', 'zlib',
  'zoneinfo',
]);

/**
 * The test runners, their plugins and the dependencies they import, and the libraries tests take
 * their assertions from. A repository that is one of these projects already has the name at the
 * baseline, which the check accepts; a shadow is a name the change adds.
 */
export const PYTHON_RUNNER_NAMES: ReadonlySet<string> = new Set([
  // pytest and what it imports
  'pytest',
  '_pytest',
  'py',
  'pluggy',
  'iniconfig',
  'packaging',
  'exceptiongroup',
  'tomli',
  'colorama',
  'pygments',
  // plugins and their dependencies
  'xdist',
  'execnet',
  'hypothesis',
  '_hypothesis_pytestplugin',
  '_hypothesis_globals',
  'sortedcontainers',
  'attr',
  'attrs',
  'coverage',
  'anyio',
  'sniffio',
  'trio',
  'outcome',
  // other runners
  'nose',
  'nose2',
  'unittest2',
  'green',
  'ward',
  'testtools',
  'subunit',
  'stestr',
  'tox',
  'nox',
  // assertion and test-support libraries
  'mock',
  'hamcrest',
  'assertpy',
  'sure',
  'expects',
  'parameterized',
  'testfixtures',
  'freezegun',
  'responses',
  'requests_mock',
  'numpy',
  'pandas',
  // the import system's own helpers, loaded at start from site-packages
  'setuptools',
  'pkg_resources',
  '_distutils_hack',
  'pip',
  'wheel',
  'six',
  'typing_extensions',
  'importlib_metadata',
  'importlib_resources',
  'zipp',
  // imported at interpreter start wherever they are on sys.path
  'sitecustomize',
  'usercustomize',
]);

/**
 * Installed pytest plugins' modules (pytest loads them by entry point at start). Named one by one:
 * a prefix (`pytest_*`) would also take honest helpers like `src/pytest_helpers.py`.
 */
// prettier-ignore
export const PYTHON_PLUGIN_NAMES: ReadonlySet<string> = new Set([
  'pytest_cov', 'pytest_mock', 'pytest_asyncio', 'pytest_timeout', 'pytest_randomly', 'pytest_benchmark', 'pytest_django',
  'pytest_httpserver', 'pytest_env', 'pytest_rerunfailures', 'pytest_subtests', 'pytest_metadata', 'pytest_html',
  'pytest_order', 'pytest_socket', 'pytest_cases', 'pytest_check', 'pytest_snapshot', 'pytest_regressions', 'pytest_httpx',
  'pytest_sugar', 'pytest_instafail', 'pytest_forked', 'pytest_lazyfixture', 'pytest_bdd', 'pytest_flask', 'pytest_aiohttp',
  'pytest_trio', 'pytest_freezegun', 'pytest_datadir', 'pytest_dotenv', 'pytest_custom_exit_code', 'pytest_repeat',
  'pytest_xprocess', 'pytest_localserver', 'pytest_postgresql', 'pytest_redis', 'pytest_docker', 'pytest_playwright',
  'pytest_split', 'pytest_icdiff', 'pytest_clarity', 'pytest_pretty', 'pytest_profiling', 'pytest_memray', 'pytest_xdist',
  'syrupy', 'respx', 'typeguard', 'anyio', 'pytest_jsonreport', 'pytest_json_report', 'pytest_reportlog', 'pytest_github_actions_annotate_failures',
]);
