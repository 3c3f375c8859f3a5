/**
 * With CRUCIBLE_RECORD_DURATIONS=1 (`npm run test:durations`), writes how long each test file took
 * into test/durations.json, which test/setup/slowest-first.ts orders the files by. Files that did
 * not run keep their recorded duration, so a tier or a directory can be recorded on its own; files
 * that no longer exist are dropped. A file's time is what its worker spent on it: preparing,
 * importing, its setup files and its tests.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { DURATIONS_FILE, fileKey, readDurations } from './slowest-first.js';

export default class RecordDurations implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (process.env.CRUCIBLE_RECORD_DURATIONS !== '1') return;
    const durations = readDurations();
    for (const module of modules) {
      if (module.state() === 'skipped' || module.state() === 'pending') continue;
      const d = module.diagnostic();
      const spent = d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration + d.duration;
      durations[fileKey(module.project.config.root, module.moduleId)] = Math.round(spent / 10) * 10;
    }
    const kept = Object.keys(durations)
      .filter((file) => existsSync(resolve(file)))
      .sort();
    writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(kept.map((file) => [file, durations[file]])), null, 2)}\n`);
  }
}
