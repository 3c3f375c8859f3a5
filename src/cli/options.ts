import { Option, type Command } from 'commander';
import type { SandboxKind } from '../infra/sandbox/index.js';
import { STATE_DIR_DEFAULT } from './state-dir-option.js';

/**
 * The options many commands share, each declared once here as a value (an OptionSpec), with the
 * type of the value commander gives the command's action. A command's options interface extends
 * the value types of the options it takes (e.g. `StateDirValue & JsonValue`), so a flag and its
 * type cannot drift apart. Each command keeps its own description: what `--out` holds differs per
 * command, so the shared ones are made per command from a description.
 */

/** Repeatable options (`--agent a --agent b`) collect into an array. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * One option as data. A command gets an Option of its own made from it (commander keeps
 * per-command state beside an Option, so one instance is never shared between commands).
 */
export interface OptionSpec {
  readonly flags: string;
  readonly description: string;
  readonly defaultValue?: string;
  readonly choices?: readonly string[];
  /** Given more than once, the values collect into an array. */
  readonly repeatable?: boolean;
  /** The attribute name of an option it cannot be given with. */
  readonly conflicts?: string;
}

/** Options that go together (the model flags, the reporter flag), declared once and added as one. */
export type OptionGroup = readonly OptionSpec[];

/** A fresh commander Option from its spec. */
export function toOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
  if (spec.choices !== undefined) option.choices(spec.choices);
  if (spec.repeatable === true) option.argParser(collect);
  if (spec.conflicts !== undefined) option.conflicts(spec.conflicts);
  return option;
}

/** Adds the groups' options to `command`, in their order, after the ones it already has (help lists them so). */
export function withOptions(command: Command, ...groups: readonly OptionGroup[]): Command {
  for (const spec of groups.flat()) command.addOption(toOption(spec));
  return command;
}

/** `-o, --out <dir>`: Crucible's state directory (made absolute before the action: state-dir-option.ts). */
export interface StateDirValue {
  out: string;
}
export function stateDirSpec(description = "Crucible's state directory"): OptionSpec {
  return { flags: '-o, --out <dir>', description, defaultValue: STATE_DIR_DEFAULT };
}
export function stateDirOption(description?: string): Option {
  return toOption(stateDirSpec(description));
}

/** `--json`: the command's result as JSON on stdout. */
export interface JsonValue {
  json?: boolean;
}
export function jsonSpec(description: string): OptionSpec {
  return { flags: '--json', description };
}
export function jsonOption(description: string): Option {
  return toOption(jsonSpec(description));
}

/** `-q, --quiet`: no progress output. */
export interface QuietValue {
  quiet?: boolean;
}
export function quietOption(description = 'no progress output; only the final report'): Option {
  return toOption({ flags: '-q, --quiet', description });
}

/** `--sandbox <kind>`: where agents and tests run. */
export interface SandboxValue {
  sandbox?: SandboxKind;
}
export const SANDBOX_KINDS: readonly SandboxKind[] = ['bwrap', 'local', 'docker'];
export function sandboxSpec(description: string, kinds: readonly SandboxKind[] = SANDBOX_KINDS): OptionSpec {
  return { flags: '--sandbox <kind>', description, choices: kinds };
}
export function sandboxOption(description: string, kinds?: readonly SandboxKind[]): Option {
  return toOption(sandboxSpec(description, kinds));
}

/** `-j, --concurrency <n>`: attempts in flight at once (checked by wholeNumber in the command). */
export interface ConcurrencyValue {
  concurrency?: string;
}
export function concurrencyOption(description = 'attempts in flight at once (default: min(cores, 4))'): Option {
  return toOption({ flags: '-j, --concurrency <n>', description });
}

/** `-t, --task <id>`, repeatable: a task selection. */
export interface TaskSelectionValue {
  task?: string[];
}
export function taskOption(description = 'only this task (repeatable)'): Option {
  return toOption({ flags: '-t, --task <id>', description, repeatable: true });
}

/** `--agents <file>`: agent profiles beside the built-in ones. */
export interface AgentsFileValue {
  agents?: string;
}
export function agentsFileOption(description: string): Option {
  return toOption({ flags: '--agents <file>', description });
}

/** `--trust <file>` and `--signatures <file>`: how a pack's signatures are checked. */
export function trustSpecs(trust: string): OptionGroup {
  return [
    { flags: '--trust <file>', description: trust },
    { flags: '--signatures <file>', description: 'signature file to read (repeatable; default <zip>.sig.json)', repeatable: true },
  ];
}
