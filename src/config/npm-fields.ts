import type { NpmFiles, NpmPackageRef, RepoSource } from '../types/index.js';
import type { FieldPath } from './yaml-source.js';
import type { TaskParsed } from './schema.js';

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';

/** `name@1.2.3` (the schema checked the form) with the registry it is fetched from. */
export function npmPackageRef(spec: string, integrity: string | undefined, registry: string | undefined): NpmPackageRef {
  const at = spec.lastIndexOf('@');
  const base = registry ?? process.env.npm_config_registry ?? DEFAULT_NPM_REGISTRY;
  return {
    name: spec.slice(0, at),
    version: spec.slice(at + 1),
    registry: base.replace(/\/+$/, ''),
    ...(integrity !== undefined ? { integrity } : {}),
  };
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
