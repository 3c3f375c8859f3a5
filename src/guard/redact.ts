/**
 * Commands as an incident bundle may show them: credential-like values replaced, names kept.
 * The secret detectors' own patterns (checks/secret-detectors.ts) catch known key shapes; the
 * rest catches values by what they are assigned to (`TOKEN=…`, `--password …`, `user:pass@host`).
 */
import { SECRET_DETECTORS } from '../checks/index.js';

const SECRET_NAME = /(?:token|secret|passw(?:or)?d|passwd|api[_-]?key|access[_-]?key|private[_-]?key|auth|credential|cookie|session)/i;
const REDACTED = '[redacted]';

export function redactArgv(argv: readonly string[]): string[] {
  let nextIsSecret = false;
  return argv.map((word) => {
    if (nextIsSecret) {
      nextIsSecret = false;
      return REDACTED;
    }
    // `--password` followed by its value as the next word.
    if (/^--?[\w-]+$/.test(word) && SECRET_NAME.test(word)) {
      nextIsSecret = true;
      return word;
    }
    return redactText(word);
  });
}

export function redactText(text: string): string {
  let out = text
    // NAME=value and --name=value, NAME: value (headers)
    .replace(
      /([\w.-]*?(?:token|secret|passw(?:or)?d|passwd|api[_-]?key|access[_-]?key|private[_-]?key|auth\w*|credential\w*|cookie|session)[\w.-]*\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s'";&|]+)/gi,
      `$1${REDACTED}`,
    )
    // Bearer / Basic credentials
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`)
    // user:password@host in URLs
    .replace(/(\w+:\/\/[^/\s:@]+):[^@\s/]+@/g, `$1:${REDACTED}@`);
  for (const detector of SECRET_DETECTORS) {
    const flags = detector.regex.flags.includes('g') ? detector.regex.flags : `${detector.regex.flags}g`;
    out = out.replace(new RegExp(detector.regex.source, flags), REDACTED);
  }
  return out;
}
