import { SECRET_DETECTORS } from '../checks/index.js';

export const REDACTED = '[REDACTED]';

/** Names that say a value is a credential: in flags (`--api-key`), variables (`GITHUB_TOKEN=`) and headers. */
const CREDENTIAL_NAME =
  /(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|apikey|access[-_]?key|private[-_]?key|credentials?|auth(?:orization|[-_]?token)?|bearer|cookie|session[-_]?id)(?![a-z])/i;

/** `--token=v`, `--api-key=v`: the value goes, the flag stays. */
const FLAG_WITH_VALUE = /^(-{1,2}[A-Za-z0-9][\w.-]*)=(.*)$/s;
/** `--token` alone: the next argument is its value. */
const FLAG_ALONE = /^-{1,2}[A-Za-z0-9][\w.-]*$/;
/** `NAME=value` (an environment assignment or a config pair). */
const ASSIGNMENT = /^([A-Za-z_][\w.-]*)=(.*)$/s;

/** Inside one argument (a `sh -c` script, a header): each credential-like form, value replaced. */
const INLINE: Array<[RegExp, (substring: string, ...groups: string[]) => string]> = [
  // `Authorization: Bearer abc`, `X-Api-Key: abc`, `Cookie: a=b`
  [/\b((?:proxy-)?authorization|x-[\w-]*(?:key|token|secret)|cookie)(\s*:\s*)[^'"\n]+/gi, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`],
  // `https://user:pass@host`
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s:@'"]+:[^/\s@'"]+@/gi, (_m, scheme: string) => `${scheme}${REDACTED}@`],
  // `--password=x`, `--token x` inside a script
  [
    new RegExp(`(-{1,2}[\\w.-]*${CREDENTIAL_NAME.source}[\\w.-]*)(=|\\s+)(?!-)("[^"]*"|'[^']*'|[^\\s'";|&]+)`, 'gi'),
    (_m, flag: string, sep: string) => `${flag}${sep}${REDACTED}`,
  ],
  // `export GITHUB_TOKEN=x`, `API_KEY='x'`
  [new RegExp(`\\b(\\w*?${CREDENTIAL_NAME.source}\\w*)=("[^"]*"|'[^']*'|[^\\s'";|&]+)`, 'gi'), (_m, name: string) => `${name}=${REDACTED}`],
];

/**
 * argv as a trace records it: values of credential-like flags and assignments, credential headers,
 * URL user-info and anything a secret detector recognizes become [REDACTED]. The command, its
 * other arguments and every path stay, so the rules over commands judge the same text.
 */
export function sanitizeArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let redactNext = false;
  for (const arg of argv) {
    if (redactNext) {
      out.push(REDACTED);
      redactNext = false;
      continue;
    }
    const flag = FLAG_WITH_VALUE.exec(arg);
    if (flag?.[1] !== undefined && CREDENTIAL_NAME.test(flag[1])) {
      out.push(`${flag[1]}=${REDACTED}`);
      continue;
    }
    if (FLAG_ALONE.test(arg) && CREDENTIAL_NAME.test(arg)) {
      out.push(arg);
      redactNext = true;
      continue;
    }
    const assignment = ASSIGNMENT.exec(arg);
    if (assignment?.[1] !== undefined && CREDENTIAL_NAME.test(assignment[1])) {
      out.push(`${assignment[1]}=${REDACTED}`);
      continue;
    }
    out.push(redactText(arg));
  }
  return out;
}

/** The inline forms and the secret detectors over free text. */
export function redactText(text: string): string {
  let result = text;
  for (const [pattern, replace] of INLINE) result = result.replace(pattern, replace);
  for (const detector of SECRET_DETECTORS) {
    const global = new RegExp(detector.regex.source, detector.regex.flags.includes('g') ? detector.regex.flags : `${detector.regex.flags}g`);
    result = result.replace(global, REDACTED);
  }
  return result;
}
