/**
 * Errors the user can fix by changing their input. The CLI prints `message` as one line and exits 2;
 * anything else that escapes is a bug or a harness failure and exits 1 with a stack under DEBUG.
 */
export class InputError extends Error {
  readonly exitCode: number = 2;
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/**
 * Exit code of a run stopped by a full disk (EX_TEMPFAIL of sysexits.h): not bad input and not a
 * bug, but a condition that passes; the run is kept and resumes once there is space.
 */
export const EXIT_DISK_FULL = 75;

/** What went wrong with Crucible's state directory; `no_space` is the only kind that passes by itself. */
export type StateDirFault = 'no_space' | 'read_only' | 'no_permission' | 'vanished';

/**
 * The machine, not the input or the code, stopped a run: the state directory's disk is full, is
 * read-only, is not writable for this user, or disappeared. One line naming the directory and the
 * fix; exit 75 for a full disk (the run resumes once space is freed), 2 for the others.
 */
export class StateDirError extends InputError {
  override readonly exitCode: number;
  constructor(
    readonly fault: StateDirFault,
    message: string,
  ) {
    super(message);
    this.name = 'StateDirError';
    this.exitCode = fault === 'no_space' ? EXIT_DISK_FULL : 2;
  }
}

export interface ConfigErrorLocation {
  file: string;
  line?: number;
  column?: number;
  /** Dotted path of the offending field, e.g. `tasks[2].tests.fail_to_pass`. */
  field?: string;
}

/** A problem in a task-set or config file: says where (file:line), what (field) and the fix. */
export class ConfigError extends InputError {
  constructor(
    readonly location: ConfigErrorLocation,
    readonly problem: string,
    readonly fix?: string,
  ) {
    super(formatConfigError(location, problem, fix));
    this.name = 'ConfigError';
  }
}

function formatConfigError(loc: ConfigErrorLocation, problem: string, fix?: string): string {
  const where = [loc.file, loc.line, loc.line !== undefined ? loc.column : undefined].filter((part) => part !== undefined).join(':');
  const field = loc.field ? ` ${loc.field}:` : '';
  const oneLine = problem.replace(/\s*\n\s*/g, ' ');
  return `${where}:${field} ${oneLine}${fix ? ` (fix: ${fix})` : ''}`;
}

/** One option of a library call and the value it was given. */
export interface OptionValue {
  /** The option's field, e.g. `trials`, `concurrency`, `selection.taskIds`. */
  field: string;
  value?: string;
}

/**
 * Bad input given to a library function as an option (the engine's RunOptions, a task selection).
 * It names the option's field; a front end that knows the option by another name (the CLI: its
 * flag) rewrites the message with `renamed`, so only the CLI speaks flag names. `{field}` in the
 * problem or fix is an option named in the text, renamed the same way.
 */
export class OptionError extends InputError {
  constructor(
    readonly options: readonly OptionValue[],
    readonly problem: string,
    readonly fix?: string,
  ) {
    super(formatOptionError(options, problem, fix, (field) => field));
    this.name = 'OptionError';
  }

  /** The message with every field named as `name` says (the CLI passes its flag names). */
  renamed(name: (field: string) => string): InputError {
    return new InputError(formatOptionError(this.options, this.problem, this.fix, name));
  }
}

function formatOptionError(options: readonly OptionValue[], problem: string, fix: string | undefined, name: (field: string) => string): string {
  const rename = (text: string): string => text.replace(/\{([A-Za-z.]+)\}/g, (_m, field: string) => name(field));
  const head = options.map((o) => (o.value === undefined ? name(o.field) : `${name(o.field)} ${o.value}`)).join(' ');
  return `${head === '' ? '' : `${head}: `}${rename(problem)}${fix ? ` (fix: ${rename(fix)})` : ''}`;
}
