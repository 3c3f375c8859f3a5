// Run by docker.test.ts: starts a docker executor from the built sandbox module (argv[2]), starts
// a long command in it, prints `running` once the container exists, and waits to be SIGKILLed.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { setInterval, setTimeout } from 'node:timers';
import { join } from 'node:path';

const [, , sandboxModule, root] = process.argv;
const { createExecutor } = await import(sandboxModule);
const workspace = join(root, 'workspace');
const home = join(root, 'home');
await mkdir(workspace, { recursive: true });
await mkdir(home, { recursive: true });
const executor = createExecutor('docker', { writable: [workspace], hidden: [], readOnly: [], home, tmp: root });
void executor.exec({ argv: ['sh', '-c', 'touch started; sleep 600'], cwd: workspace, timeoutMs: 600_000, network: 'none' });
const started = join(workspace, 'started');
while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
process.stdout.write('running\n');
setInterval(() => {}, 1000);
