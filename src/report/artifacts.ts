import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ATTEMPT_JUNIT_FILES } from '../engine/index.js';
import { parseJUnit } from '../evidence/index.js';
import type { TestCaseResult } from '../types/index.js';
import { parseCommands, parseTrajectory, type ParsedTrajectory } from './trajectory.js';
import type { AttemptArtifacts, BoundedText } from './view.js';

/** Per-attempt limits: a report or an API answer never carries a whole runaway log. */
export interface ArtifactLimits {
  diffBytes: number;
  trajectoryBytes: number;
  junitBytes: number;
}

export const DEFAULT_ARTIFACT_LIMITS: ArtifactLimits = {
  diffBytes: 256 * 1024,
  trajectoryBytes: 2 * 1024 * 1024,
  junitBytes: 4 * 1024 * 1024,
};

// Only the copies the engine made: results/ is the test command's scratch directory, which an
// agent without a sandbox could have written to.
const HELD_OUT_JUNIT = [ATTEMPT_JUNIT_FILES.heldOut];
const TESTS_JUNIT = [ATTEMPT_JUNIT_FILES.tests];

/** Reads at most `maxBytes` of a file; null when it does not exist. Never follows into a directory. */
export async function readBounded(file: string, maxBytes: number): Promise<BoundedText | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return null;
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { text: buffer.subarray(0, read).toString('utf8'), bytes: size, truncated: size > read };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

async function readJUnitCases(dir: string, names: readonly string[], maxBytes: number): Promise<TestCaseResult[] | null> {
  for (const name of names) {
    const xml = await readBounded(join(dir, name), maxBytes);
    if (xml === null || xml.truncated) continue;
    const parsed = parseJUnit(xml.text);
    if (parsed.error === undefined) return parsed.cases;
  }
  return null;
}

/**
 * The one reader of an attempt's trajectory.jsonl, for the report, the dashboard and `crucible show`:
 * bounded, never throws, null when the attempt has none.
 */
export async function loadTrajectory(attemptDir: string, maxBytes = DEFAULT_ARTIFACT_LIMITS.trajectoryBytes): Promise<ParsedTrajectory | null> {
  const text = await readBounded(join(attemptDir, 'trajectory.jsonl'), maxBytes);
  if (text === null) return null;
  const parsed = parseTrajectory(text.text);
  if (text.truncated) parsed.truncated = true;
  return parsed;
}

/** Loads what the attempt page shows from an attempt directory; missing files become nulls. */
export async function loadAttemptArtifacts(attemptDir: string, limits: ArtifactLimits = DEFAULT_ARTIFACT_LIMITS): Promise<AttemptArtifacts> {
  const [diff, trajectory, commandsText, tests, heldOutTests] = await Promise.all([
    readBounded(join(attemptDir, 'diff.patch'), limits.diffBytes),
    loadTrajectory(attemptDir, limits.trajectoryBytes),
    readBounded(join(attemptDir, 'commands.jsonl'), limits.trajectoryBytes),
    readJUnitCases(attemptDir, TESTS_JUNIT, limits.junitBytes),
    readJUnitCases(attemptDir, HELD_OUT_JUNIT, limits.junitBytes),
  ]);
  const commands = commandsText === null ? null : parseCommands(commandsText.text);
  if (commands && commandsText?.truncated) commands.truncated = true;
  return { diff, trajectory, commands, tests, heldOutTests };
}

export function emptyArtifacts(omitted?: string): AttemptArtifacts {
  return { diff: null, trajectory: null, commands: null, tests: null, heldOutTests: null, ...(omitted ? { omitted } : {}) };
}
