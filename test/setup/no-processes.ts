/**
 * The unit tier's rule, enforced: a unit test starts no external process. Every way Node spawns
 * one throws, so a test that needs git, bwrap, a shell or the built CLI belongs to the integration
 * or end-to-end tier (vitest.config.ts).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const refuse = (name: string) => (): never => {
  throw new Error(`unit tier: child_process.${name} called; a test that starts a process belongs to the integration or e2e tier (vitest.config.ts)`);
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  Object.defineProperty(childProcess, name, { value: refuse(name), configurable: true, writable: true });
}
syncBuiltinESMExports();
