import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './cli.js';

export interface RunningView {
  url: string;
  stop: () => Promise<void>;
}

/** `crucible view` on a state directory, as a user starts it: resolves once it prints its URL. */
export async function startView(state: string): Promise<RunningView> {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'view', '--port', '0', '--out', state], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m?.[1]) done(m[1]);
    });
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`crucible view exited ${code}: ${out}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  };
  return { url, stop };
}
