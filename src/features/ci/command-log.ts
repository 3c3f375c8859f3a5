/**
 * `--commands FILE`: a command log (commands.jsonl, one JSON object per line with at least `argv`
 * and `cwd`, as attempts record it) whose commands unsafe_commands judges. A CI job has no agent
 * the harness watched, so the log is whatever the caller recorded: an agent's own log, say.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { CommandEvent } from '../../domain/evidence/index.js';
import { InputError } from '../../core/errors.js';

/** A log larger than this is not a command log. */
export const MAX_COMMAND_LOG_BYTES = 64 * 1024 * 1024;

export function readCommandLog(file: string): CommandEvent[] {
  if (!existsSync(file)) throw new InputError(`${file}: no such command log (fix: pass the commands.jsonl the agent's commands were recorded in)`);
  const text = readFileSync(file);
  if (text.length > MAX_COMMAND_LOG_BYTES)
    throw new InputError(`${file}: larger than ${MAX_COMMAND_LOG_BYTES} bytes (fix: pass a command log, one JSON object per line)`);
  return text
    .toString('utf8')
    .split('\n')
    .flatMap((line, index) => (line.trim() === '' ? [] : [parseEvent(file, index + 1, line)]));
}

function parseEvent(file: string, lineNo: number, line: string): CommandEvent {
  const bad = (what: string): never => {
    throw new InputError(`${file}:${lineNo}: ${what} (fix: each line is {"argv": ["cmd", "arg"], "cwd": "/dir", ...})`);
  };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return bad('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('not a JSON object');
  const o = value as Record<string, unknown>;
  if (!Array.isArray(o.argv) || o.argv.length === 0 || !o.argv.every((a) => typeof a === 'string')) return bad('argv must be a non-empty array of strings');
  if (typeof o.cwd !== 'string') return bad('cwd must be a string');
  return {
    at: typeof o.at === 'string' ? o.at : '',
    argv: o.argv as string[],
    cwd: o.cwd,
    envNames: Array.isArray(o.envNames) ? o.envNames.filter((n): n is string => typeof n === 'string') : [],
    network: o.network === 'host' || o.network === 'gateway' ? o.network : 'none',
    exitCode: typeof o.exitCode === 'number' ? o.exitCode : null,
    signal: typeof o.signal === 'string' ? o.signal : null,
    timedOut: o.timedOut === true,
    truncated: o.truncated === true,
    durationMs: typeof o.durationMs === 'number' ? o.durationMs : 0,
  };
}
