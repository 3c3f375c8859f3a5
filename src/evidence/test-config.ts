/**
 * Files outside the test directories that still decide which tests run and how. A change to one
 * counts as tampering only when it touches the part that configures tests: a new dependency in
 * package.json is fine, a new `scripts.test` is not.
 */
import { basename } from 'node:path';

/** Globs of files whose every change alters what runs. */
export const WHOLE_FILE_TEST_CONFIG = [
  '**/conftest.py',
  '**/pytest.ini',
  '**/.pytest.ini',
  '**/vitest.config.*',
  '**/vitest.workspace.*',
  '**/vitest.setup.*',
  '**/jest.config.*',
  '**/jest.setup.*',
  '**/.mocharc*',
  '**/ava.config.*',
  '**/karma.conf.*',
  '**/playwright.config.*',
  '**/node.config.json',
];

/** Globs of files where only some sections configure tests; see testSection(). */
export const SECTIONED_TEST_CONFIG = ['**/package.json', '**/pyproject.toml', '**/setup.cfg', '**/tox.ini', '**/vite.config.*'];

const PACKAGE_KEYS = ['jest', 'mocha', 'ava', 'vitest', 'c8', 'nyc'];
const PACKAGE_SCRIPTS = ['test', 'pretest', 'posttest'];

/**
 * The test-relevant part of a sectioned config file as comparable text, or undefined when the file
 * has none. A file that cannot be read as its format is returned whole: whatever changed in it
 * may have changed how tests run.
 */
export function testSection(path: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const name = basename(path);
  if (name === 'package.json') {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      const scripts = (typeof json.scripts === 'object' && json.scripts !== null ? json.scripts : {}) as Record<string, unknown>;
      const picked: Record<string, unknown> = {};
      for (const key of PACKAGE_SCRIPTS) if (scripts[key] !== undefined) picked[`scripts.${key}`] = scripts[key];
      for (const key of PACKAGE_KEYS) if (json[key] !== undefined) picked[key] = json[key];
      return Object.keys(picked).length > 0 ? JSON.stringify(picked) : undefined;
    } catch {
      return text;
    }
  }
  if (name === 'pyproject.toml') return iniSections(text, (h) => h === 'tool.pytest' || h.startsWith('tool.pytest.'));
  if (name === 'setup.cfg') return iniSections(text, (h) => h === 'tool:pytest');
  if (name === 'tox.ini') return iniSections(text, (h) => h === 'pytest');
  // vite.config.* configures vitest only when it has a `test` block; then all of it counts.
  if (name.startsWith('vite.config.')) return /\btest\s*:/.test(text) ? text : undefined;
  return text;
}

/** The bodies of INI/TOML sections whose header passes `wanted`, whitespace-normalised. */
function iniSections(text: string, wanted: (header: string) => boolean): string | undefined {
  const picked: string[] = [];
  let keep = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
    if (header) {
      keep = wanted((header[1] ?? '').replace(/["']/g, ''));
      if (keep) picked.push(`[${header[1]}]`);
      continue;
    }
    if (keep && line !== '' && !line.startsWith('#') && !line.startsWith(';')) picked.push(line);
  }
  return picked.length > 0 ? picked.join('\n') : undefined;
}

/** A JUnit report's opening, after an optional XML declaration and comments. */
const JUNIT_HEAD = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<testsuites?[\s>/]/;

export function looksLikeJUnit(head: string): boolean {
  return JUNIT_HEAD.test(head);
}
