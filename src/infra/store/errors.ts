/** Every failure the store raises on purpose; callers can tell them from driver errors by class. */
export class HistoryError extends Error {
  override readonly name: string = 'HistoryError';
}

/** The file was migrated by a newer Crucible; writing to it with this build could corrupt it. */
export class HistoryVersionError extends HistoryError {
  override readonly name = 'HistoryVersionError';
  constructor(
    readonly path: string,
    readonly fileVersion: number,
    readonly knownVersion: number,
  ) {
    super(
      `${path} uses history schema v${fileVersion}, written by a newer Crucible ` +
        `(this build knows up to v${knownVersion}). Upgrade Crucible or use another history file.`,
    );
  }
}

/** A prefix that matches more than one run or attempt; the CLI shows the candidates. */
export class AmbiguousIdError extends HistoryError {
  override readonly name = 'AmbiguousIdError';
  constructor(
    readonly prefix: string,
    readonly candidates: readonly string[],
    /** True when there were more matches than `candidates` lists. */
    readonly more: boolean,
  ) {
    super(`'${prefix}' matches more than one id: ${candidates.join(', ')}${more ? ', …' : ''}`);
  }
}
