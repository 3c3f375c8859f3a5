import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { E2E, REGISTRY, UNIT } from './test/tiers.js';
import SlowestFirst from './test/setup/slowest-first.js';

const registry = process.env.CRUCIBLE_TEST_REGISTRY === '1';

/**
 * Three tiers (test/tiers.ts): `npm test` runs them all, as CI does; `npm run test:unit` runs the
 * unit tier alone, without a build. The live-registry tests are a tier of their own that exists only
 * with CRUCIBLE_TEST_REGISTRY=1 (`npm run test:registry`, which .ci/run runs after `npm test`).
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two workers on two cores, not more: measured with `/usr/bin/time -v npx vitest run FILE` (user
    // + sys of the whole process tree) against the file's time in test/durations.json, the heaviest
    // files are CPU-bound: distributed/adaptive took 167 s of CPU for 137 s of wall time,
    // diagnostics/mutations-cli 167 s for 97, ci/ci 55 s for 79 (bwrap, git and test runners;
    // half of it system time). With two of those running, both cores are busy, and a third worker
    // would only slow them and stretch the windows real processes depend on (a queue lock's expiry,
    // the grace period after Ctrl-C). The files that do mostly wait (a task's sleep, a lock
    // expiring, a Redis outage) overlap inside the file instead, where the waits are
    // (describe.concurrent in test/distributed/faults and recovery). The Docker files look idle by
    // that measure (docker-run 24 s of CPU for 98 s) only because the engine's and the containers'
    // CPU is not in the test's process tree. vitest's own default (cores - 1) would run one file at
    // a time on two cores.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The slowest files first (test/durations.json), so the long ones overlap the rest.
    sequence: { sequencer: SlowestFirst },
    reporters: ['default', './test/setup/record-durations.ts'],
    // Before any worker starts: they and every process they spawn inherit the PATH it sets.
    globalSetup: ['test/setup/real-python.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT,
          setupFiles: ['test/setup/no-processes.ts'],
          // One worker process runs many unit files: each file re-importing vitest and the modules
          // it tests in a fresh process cost four times the CPU the tests themselves take.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...UNIT, ...E2E, ...REGISTRY] } },
      // The e2e tier's global setup runs the bundled examples once, on first request, for every test that reads them.
      { extends: true, test: { name: 'e2e', include: E2E, exclude: REGISTRY, globalSetup: ['test/setup/real-python.ts', 'test/setup/examples.ts'] } },
      ...(registry ? [{ extends: true as const, test: { name: 'registry', include: REGISTRY } }] : []),
    ],
  },
});
