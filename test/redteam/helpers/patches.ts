/**
 * An attack of the catalogue as a prediction: the agent runs once on a git copy of the task's repo
 * (the local executor: it only writes files), and what it changed is the patch `crucible grade`
 * and `crucible ci` receive. The scenario stays the catalogue's; only the path it arrives by differs.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRunAgent } from '../../../src/domain/redteam/index.js';
import { extraInitReportAgent, forgedInitExitAgent, forgedInitSetupErrorAgent } from '../../../src/domain/redteam/supervisor-channel.js';
import type { Agent } from '../../../src/domain/agents/index.js';
import { createExecutor } from '../../../src/infra/sandbox/index.js';
import type { Task } from '../../../src/core/types/index.js';

/** The attacks on the bwrap init's report channel: agents of their own, outside the catalogue (supervisor-channel.test.ts). */
export const INIT_REPORT_ATTACKS: ReadonlyMap<string, Agent> = new Map(
  [forgedInitSetupErrorAgent, forgedInitExitAgent, extraInitReportAgent].map((agent) => [agent.name, agent]),
);

export async function attackPatch(name: string, task: Task): Promise<string> {
  if (task.repo.kind !== 'local') throw new Error(`${task.id}: a local repo is needed`);
  const root = mkdtempSync(join(tmpdir(), 'crucible-attack-patch-'));
  try {
    const workspace = join(root, 'ws');
    cpSync(task.repo.path, workspace, { recursive: true });
    for (const dir of ['home', 'tmp', 'attempt']) mkdirSync(join(root, dir));
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: workspace, encoding: 'utf8' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
    const executor = createExecutor('local', { writable: [workspace], hidden: [], readOnly: [], home: join(root, 'home'), tmp: join(root, 'tmp') });
    try {
      const result = await (INIT_REPORT_ATTACKS.get(name) ?? resolveRunAgent(name)).run({
        task,
        workspace,
        instruction: task.instruction,
        executor,
        attemptDir: join(root, 'attempt'),
        home: join(root, 'home'),
        limits: { timeoutMs: 60_000 },
        signal: new AbortController().signal,
      });
      if (result.stopReason === 'error') throw new Error(`${name} on ${task.id}: ${result.error ?? 'failed'}`);
    } finally {
      await executor.close();
    }
    git('add', '-A');
    return git('diff', '--cached', '--binary');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
