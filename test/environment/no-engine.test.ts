import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crucible } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

/** An engine address where nothing listens: what a machine without Docker looks like to the CLI. */
const NO_ENGINE = { DOCKER_HOST: 'unix:///nonexistent/crucible-test-docker.sock' };

describe('--sandbox docker without a Docker engine', () => {
  it('stops before any attempt with one line naming the fix (exit 2)', () => {
    const r = crucible(['run', resolve('examples/docker/tasks.yaml'), '--sandbox', 'docker', '--agent', 'oracle', '--out', tempDir()], { env: NO_ENGINE });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /--sandbox docker needs a Docker engine: no Docker engine answers at unix:\/\/\/nonexistent\/crucible-test-docker\.sock \(fix: install Docker/,
    );
  });

  it('says the same for validate', () => {
    const r = crucible(['validate', resolve('examples/docker/tasks.yaml'), '--sandbox', 'docker', '--out', tempDir()], { env: NO_ENGINE });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/needs a Docker engine.*\(fix: /);
  });
});
