/**
 * An attempt's evaluate phase: the captured change on the bench (its protected paths put back,
 * its diff read, its tests and held-out tests each in a fresh copy, every check judged) and the
 * verdict's input, for the record to judge.
 */
import { ignoredManifest, type FsGuardEvidence } from '../domain/evidence/index.js';
import type { Outcome } from '../domain/grading/index.js';
import type { Task } from '../core/types/index.js';
import type { Bench } from './bench.js';
import { attemptWriteRoots, type AttemptEnv } from './attempt-env.js';
import type { AgentRun } from './attempt-agent.js';
import type { AttemptSoFar, VerifiedEvidence } from './attempt-record.js';
import { agentCaused } from './agent-caused.js';

export interface AttemptEvaluation {
  outcome: Outcome;
  verified: NonNullable<AttemptSoFar['verified']>;
  evidence: VerifiedEvidence;
}

export async function evaluateAttempt(
  task: Task,
  bench: Bench,
  env: AttemptEnv,
  agentRun: AgentRun,
  captured: { tree: string; outsideWrites: FsGuardEvidence },
): Promise<AttemptEvaluation> {
  const { paths, baseline } = bench;
  // git reads the agent's own ignore files here: what it refuses of them is the agent's doing too.
  // Read now, so that the agent's tree (an overlay's holder) goes before any test run.
  const held = bench.agentTree.held(paths.agentWorkspace);
  const ignoredAfter = await agentCaused('list what the change ignores', paths.attemptDir, () => ignoredManifest(baseline, paths.agentWorkspace, held));
  await bench.agentTree.release(env.keepWorkspace ? paths.agentWorkspace : undefined);
  const { evidence, outcome } = await bench.evaluate({
    tree: captured.tree,
    commands: agentRun.commands,
    writeRoots: attemptWriteRoots(task, paths, env.stateDir),
    sandboxEnforcesFs: agentRun.enforcesFs,
    outsideWrites: captured.outsideWrites,
    ignoredAfter: async () => ignoredAfter,
    agentResult: agentRun.result,
  });
  const { diff, tests, heldOut, checks, checkInput, blobs } = evidence;
  return {
    outcome,
    verified: { diff, notGraded: evidence.notGraded, tests: tests.evidence, ...(heldOut ? { heldOut: heldOut.evidence } : {}), checks },
    evidence: { checkInput, blobs, ...(heldOut?.cases ? { heldOutCases: heldOut.cases } : {}) },
  };
}
