import { Option } from 'commander';
import type { SandboxKind } from '../infra/sandbox/index.js';
import { STATE_DIR_DEFAULT } from './state-dir-option.js';

/**
 * The options many commands share, each declared once here with the type of the value commander
 * gives the command's action. A command's options interface extends the value types of the
 * builders it adds (e.g. `StateDirValue & JsonValue`), so a flag and its type cannot drift apart.
 * Each command keeps its own description: what `--out` holds differs per command.
 */

/** Repeatable options (`--agent a --agent b`) collect into an array. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `-o, --out <dir>`: Crucible's state directory (made absolute before the action: state-dir-option.ts). */
export interface StateDirValue {
  out: string;
}
export function stateDirOption(description = "Crucible's state directory"): Option {
  return new Option('-o, --out <dir>', description).default(STATE_DIR_DEFAULT);
}

/** `--json`: the command's result as JSON on stdout. */
export interface JsonValue {
  json?: boolean;
}
export function jsonOption(description: string): Option {
  return new Option('--json', description);
}

/** `-q, --quiet`: no progress output. */
export interface QuietValue {
  quiet?: boolean;
}
export function quietOption(description = 'no progress output; only the final report'): Option {
  return new Option('-q, --quiet', description);
}

/** `--sandbox <kind>`: where agents and tests run. */
export interface SandboxValue {
  sandbox?: SandboxKind;
}
export const SANDBOX_KINDS: readonly SandboxKind[] = ['bwrap', 'local', 'docker'];
export function sandboxOption(description: string, kinds: readonly SandboxKind[] = SANDBOX_KINDS): Option {
  return new Option('--sandbox <kind>', description).choices(kinds);
}

/** `-j, --concurrency <n>`: attempts in flight at once (checked by wholeNumber in the command). */
export interface ConcurrencyValue {
  concurrency?: string;
}
export function concurrencyOption(description = 'attempts in flight at once (default: min(cores, 4))'): Option {
  return new Option('-j, --concurrency <n>', description);
}

/** `-t, --task <id>`, repeatable: a task selection. */
export interface TaskSelectionValue {
  task?: string[];
}
export function taskOption(description = 'only this task (repeatable)'): Option {
  return new Option('-t, --task <id>', description).argParser(collect);
}

/** `--agents <file>`: agent profiles beside the built-in ones. */
export interface AgentsFileValue {
  agents?: string;
}
export function agentsFileOption(description: string): Option {
  return new Option('--agents <file>', description);
}
