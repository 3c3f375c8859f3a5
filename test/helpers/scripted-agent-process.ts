import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export interface ScriptedAgentProcess {
  /** Without a version segment; append `/tamper` to have the agent cheat. */
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * The scripted agent upstream (scripts/scripted-agent-upstream.mjs) in a child process, so tests
 * can drive the CLI with the synchronous crucible() helper while it answers the agents.
 */
export async function startScriptedAgentProcess(): Promise<ScriptedAgentProcess> {
  const child: ChildProcess = spawn(process.execPath, [resolve('scripts/scripted-agent-upstream.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const baseUrl = await new Promise<string>((resolveUrl, reject) => {
    lines.once('line', (line) => resolveUrl(line.trim()));
    child.once('exit', (code) => reject(new Error(`scripted agent upstream exited with ${code} before it listened`)));
  });
  return {
    baseUrl,
    stop: () =>
      new Promise((resolveStop) => {
        if (child.exitCode !== null) return resolveStop();
        child.once('exit', () => resolveStop());
        child.kill('SIGTERM');
      }),
  };
}
