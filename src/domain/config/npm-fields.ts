import { InputError } from '../../core/errors.js';
import type { NpmFiles, NpmPackageRef, RepoSource } from '../../core/types/index.js';
import type { FieldPath } from '../../core/input/index.js';
import type { TaskParsed } from './schema.js';

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';

/** `name@1.2.3` (the schema checked the form) with the registry it is fetched from. */
export function npmPackageRef(spec: string, integrity: string | undefined, registry: string | undefined): NpmPackageRef {
  const at = spec.lastIndexOf('@');
  const base = registry ?? process.env.npm_config_registry ?? DEFAULT_NPM_REGISTRY;
  refuseCredentials(base, registry !== undefined ? 'repo.registry' : 'npm_config_registry');
  return {
    name: spec.slice(0, at),
    version: spec.slice(at + 1),
    registry: base.replace(/\/+$/, ''),
    ...(integrity !== undefined ? { integrity } : {}),
  };
}

/**
 * The registry URL is written into plan.json, the task hash and error messages: one that carries
 * `user:password@` would put a secret in all of them.
 */
function refuseCredentials(url: string, where: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`${where}: ${url.replace(/\/\/[^/@]*@/, '//<redacted>@')} is not a URL (fix: give the registry as https://host/path)`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new InputError(
      `${where}: the registry URL carries credentials, which would be written into plan.json and reports (fix: drop user:password@ from the URL; public packages need none)`,
    );
  }
}

type Fail = (field: FieldPath, problem: string, fix: string) => never;

/**
 * `tests_from` and `oracle.from_npm`: both name a later version of a package, fetched from the
 * repo's registry. The `tests_from` paths are added to the guarded test paths, whatever
 * `tests.test_paths` says, since they are the tests by definition.
 */
export function resolveNpmFields(t: TaskParsed, repo: RepoSource, fail: Fail): { testsFrom?: NpmFiles; oracle?: NpmFiles; testPaths: string[] } {
  const registry = repo.kind === 'npm' ? repo.package.registry : undefined;
  const files = (field: string, spec: string, integrity: string | undefined, paths: string[]): NpmFiles => {
    paths.forEach((p, i) => {
      if (p.startsWith('/') || p.split('/').includes('..'))
        fail([field, 'paths', i], `${p} is not a path inside the package`, 'give a path relative to the package root, without ..');
    });
    return { package: npmPackageRef(spec, integrity, registry), paths: paths.map((p) => p.replace(/\/+$/, '')) };
  };
  const testsFrom = t.tests_from ? files('tests_from', t.tests_from.npm, t.tests_from.integrity, t.tests_from.paths) : undefined;
  let oracle: NpmFiles | undefined;
  if (t.oracle && 'from_npm' in t.oracle) {
    if (repo.kind !== 'npm')
      fail(['oracle', 'from_npm'], 'needs repo: { npm: … } to diff against', 'use oracle: { patch: … } for a repo that is not an npm package');
    oracle = files('oracle', t.oracle.from_npm, t.oracle.integrity, t.oracle.paths);
    if (oracle.package.name !== repo.package.name)
      fail(['oracle', 'from_npm'], `${oracle.package.name} is not the repo's package (${repo.package.name})`, `name a later version of ${repo.package.name}`);
  }
  const testPaths = (testsFrom?.paths ?? []).flatMap((p) => [p, `${p}/**`]);
  return { ...(testsFrom ? { testsFrom } : {}), ...(oracle ? { oracle } : {}), testPaths };
}
