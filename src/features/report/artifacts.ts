import { open } from 'node:fs/promises';
import { attemptFile } from '../../domain/run-dir/index.js';
import { parseJUnit } from '../../domain/evidence/index.js';
import type { TestCaseResult } from '../../core/types/index.js';
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

/** The copy of a JUnit report the engine made (results/ is the test command's scratch, which an agent without a sandbox could write to). */
async function readJUnitCases(dir: string, name: 'tests' | 'heldOut', maxBytes: number): Promise<TestCaseResult[] | null> {
  const xml = await readBounded(attemptFile(dir, name), maxBytes);
  if (xml === null || xml.truncated) return null;
  const parsed = parseJUnit(xml.text);
  return parsed.error === undefined ? parsed.cases : null;
}

/**
 * The one reader of an attempt's trajectory.jsonl, for the report, the dashboard and `crucible show`:
 * bounded, never throws, null when the attempt has none.
 */
export async function loadTrajectory(attemptDir: string, maxBytes = DEFAULT_ARTIFACT_LIMITS.trajectoryBytes): Promise<ParsedTrajectory | null> {
  const text = await readBounded(attemptFile(attemptDir, 'trajectory'), maxBytes);
  if (text === null) return null;
  const parsed = parseTrajectory(text.text);
  if (text.truncated) parsed.truncated = true;
  return parsed;
}

/** Loads what the attempt page shows from an attempt directory; missing files become nulls. */
export async function loadAttemptArtifacts(attemptDir: string, limits: ArtifactLimits = DEFAULT_ARTIFACT_LIMITS): Promise<AttemptArtifacts> {
  const [diff, trajectory, commandsText, tests, heldOutTests] = await Promise.all([
    readBounded(attemptFile(attemptDir, 'diff'), limits.diffBytes),
    loadTrajectory(attemptDir, limits.trajectoryBytes),
    readBounded(attemptFile(attemptDir, 'commands'), limits.trajectoryBytes),
    readJUnitCases(attemptDir, 'tests', limits.junitBytes),
    readJUnitCases(attemptDir, 'heldOut', limits.junitBytes),
  ]);
  const commands = commandsText === null ? null : parseCommands(commandsText.text);
  if (commands && commandsText?.truncated) commands.truncated = true;
  return { diff, trajectory, commands, tests, heldOutTests };
}

export function emptyArtifacts(omitted?: string): AttemptArtifacts {
  return { diff: null, trajectory: null, commands: null, tests: null, heldOutTests: null, ...(omitted ? { omitted } : {}) };
}
