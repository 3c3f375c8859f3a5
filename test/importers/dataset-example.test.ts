/**
 * The offline example of docs/datasets.md works as written: examples/datasets/make-repo.sh builds
 * the repository whose commit examples/datasets/registry.json pins, and the dataset imports from
 * it. The registry names /tmp/datasets; here the same registry, its git_url pointed at the test's
 * own directory, is read instead.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

interface Entry {
  name: string;
  version: string;
  tasks: Array<{ name: string; git_url: string; git_commit_id: string; path: string }>;
}

describe('examples/datasets', () => {
  it('make-repo.sh builds the commit the registry pins, and hello@1.0 imports from it', async () => {
    const root = tempDir();
    const registry = JSON.parse(readFileSync(resolve('examples/datasets/registry.json'), 'utf8')) as Entry[];
    const task = registry[0]?.tasks[0];
    expect(task?.git_url).toBe('/tmp/datasets/harbor-tasks');
    const printed = execFileSync(resolve('examples/datasets/make-repo.sh'), [root], { encoding: 'utf8' }).trim();
    expect(printed).toBe(task?.git_commit_id);

    const moved = registry.map((d) => ({ ...d, tasks: d.tasks.map((t) => ({ ...t, git_url: join(root, 'harbor-tasks') })) }));
    writeFileSync(join(root, 'registry.json'), JSON.stringify(moved));
    const r = await runCli(['import', 'harbor', 'hello@1.0', '--registry', 'registry.json', '-o', 'out'], { cwd: root });
    expect(r.status, r.stderr).toBe(0);
    expect(loadTaskSet(join(root, 'out', 'tasks.yaml')).tasks.map((t) => t.id)).toEqual(['hello-file']);

    const doc = readFileSync(resolve('docs/datasets.md'), 'utf8');
    expect(doc).toContain('examples/datasets/make-repo.sh /tmp/datasets\n');
    expect(doc).toContain('npx crucible run hello@1.0 --registry examples/datasets/registry.json --agent oracle --sandbox docker\n');
  });
});
