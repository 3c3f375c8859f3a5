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
    // vitest's default is one worker per core but one, so a single file at a time on 2 cores; the
    // integration and e2e files mostly wait on git, sandboxes and test runners, so two overlap well.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The slowest files first (test/durations.json), so the long ones overlap the rest.
    sequence: { sequencer: SlowestFirst },
    reporters: ['default', './test/setup/record-durations.ts'],
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
      { extends: true, test: { name: 'e2e', include: E2E, exclude: REGISTRY, globalSetup: ['test/setup/examples.ts'] } },
      ...(registry ? [{ extends: true as const, test: { name: 'registry', include: REGISTRY } }] : []),
    ],
  },
});
