import { InputError } from '../../core/errors.js';

/**
 * A pack that is well-formed but is not what it claims: a file's hash, the manifest, the archive
 * digest or its signatures do not check out. Exit 1, like a failed run; malformed or hostile
 * archives (bad paths, modes, bombs, schema errors) are bad input, an InputError, exit 2.
 */
export class PackVerificationError extends InputError {
  override readonly exitCode: number = 1;
  constructor(message: string) {
    super(message);
    this.name = 'PackVerificationError';
  }
}
