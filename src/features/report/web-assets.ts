import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../core/errors.js';

/** The file names the web build writes (web/vite.config.ts); stable so the HTML report can inline them. */
export const WEB_ENTRY_JS = 'assets/app.js';
export const WEB_ENTRY_CSS = 'assets/app.css';

/**
 * Where the built web app lives: `dist/web` of the package, found the same way from `src/` (tests)
 * and `dist/` (the packaged CLI). CRUCIBLE_WEB_DIR overrides it, for development.
 */
export function webAssetsDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.CRUCIBLE_WEB_DIR;
  if (override) return override;
  // Up from this module to the package's root (src/features/report, dist/features/report or dist/bundle).
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4 && !existsSync(join(dir, 'package.json')); depth++) dir = dirname(dir);
  return join(dir, 'dist', 'web') + sep;
}

/** The user can fix it (build the package), so it is input-class: one line, exit 2. */
export class WebBundleMissingError extends InputError {
  constructor(dir: string) {
    super(`the web app is not built (no ${WEB_ENTRY_JS} in ${dir}) (fix: run npm run build)`);
    this.name = 'WebBundleMissingError';
  }
}

export function assertWebBundle(dir: string): void {
  if (!existsSync(`${dir}/${WEB_ENTRY_JS}`)) throw new WebBundleMissingError(dir);
}
