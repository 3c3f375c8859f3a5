/**
 * Errors the user can fix by changing their input. The CLI prints `message` as one line and exits 2;
 * anything else that escapes is a bug or a harness failure and exits 1 with a stack under DEBUG.
 */
export class InputError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
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
  const where = [loc.file, loc.line, loc.line !== undefined ? loc.column : undefined]
    .filter((part) => part !== undefined)
    .join(':');
  const field = loc.field ? ` ${loc.field}:` : '';
  const oneLine = problem.replace(/\s*\n\s*/g, ' ');
  return `${where}:${field} ${oneLine}${fix ? ` (fix: ${fix})` : ''}`;
}
