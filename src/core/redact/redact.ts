import { SECRET_DETECTORS } from './secret-detectors.js';

/**
 * Credentials out of argv and text before they reach a manifest, a trace or an incident bundle.
 * One rule set for all three: a form caught in one place and missed in another would be a leak.
 * Values become REDACTED; names stay, so a reader still sees that a token was passed and where.
 * Unknown forms pass through: these rules catch the usual ways a secret rides in a command line,
 * a header or a URL, plus every shape a secret detector knows.
 */
export const REDACTED = '[REDACTED]';

const CREDENTIAL_WORDS =
  /token|secret|passw|passphrase|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|cookie|session[_-]?id|signature|bearer/i;
/** `auth` only as a word of the name: AUTH, GH_AUTH, auth-token, but not AUTHOR. */
const AUTH_WORD = /(^|[_-])auth(orization)?([_-]|$)/i;

/** Whether a variable, flag, header or parameter name looks like it holds a credential. */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_WORDS.test(name) || AUTH_WORD.test(name);
}

/**
 * Header-like names (`X-Api-Key:`, `Private-Token:`, `client_secret:`): the credential word ends the
 * name, so `tokenizer: …` in a commit message keeps its text.
 */
const HEADER_NAME = /(?:^|[_-])(?:api[_-]?key|apikey|access[_-]?key|token|secret|password|passwd|pwd|passphrase|credentials?|auth|session[_-]?id|signature)$/i;

/** Query parameters that carry credentials under short names the word list does not catch. */
const CREDENTIAL_PARAMS = new Set(['key', 'sig', 'code', 'pass', 'auth']);

/** Programs whose `-p` takes a password (`-pSECRET` or `-p SECRET`). */
const PASSWORD_P_PROGRAMS = new Set(['mysql', 'mysqldump', 'mysqladmin', 'mariadb', 'mariadb-dump', 'sshpass']);

/** Flags whose value is `user:password` (curl, wget). */
const USER_PASSWORD_FLAGS = new Set(['-u', '--user', '--proxy-user']);

const QUOTED_OR_WORD = `("[^"]*"|'[^']*'|[^\\s'",;&|)]+)`;

/** The detectors' patterns, global, built once. */
const DETECTOR_PATTERNS = SECRET_DETECTORS.map((d) => new RegExp(d.regex.source, d.regex.flags.includes('g') ? d.regex.flags : `${d.regex.flags}g`));

/** Redacts the credential forms inside one piece of text (a shell command, a URL, a header). */
export function redactText(text: string): string {
  let out = text
    // Authorization: Bearer X / Basic X / token X (a header in a command line or a file).
    .replace(
      /\b((?:proxy-)?authorization)(\s*[:=]\s*)(?:(bearer|basic|token|digest)\s+)?("?)[^\s"',;]+/gi,
      (_m, name: string, sep: string, scheme?: string, q?: string) => `${name}${sep}${scheme ? `${scheme} ` : ''}${q ?? ''}${REDACTED}`,
    )
    // Cookie: a=b; c=d: every pair goes, up to the end of the quoted header or line.
    .replace(/\b((?:set-)?cookie)(\s*:\s*)[^'"\n]+/gi, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`)
    // X-Api-Key: X, token: X: any other header or `name: value` pair whose name is a credential's.
    .replace(new RegExp(`(^|[\\s'"{,])([A-Za-z][\\w-]*)(:\\s*)${QUOTED_OR_WORD}`, 'g'), (m, lead: string, name: string, sep: string, value: string) =>
      HEADER_NAME.test(name) && !value.startsWith(REDACTED) ? `${lead}${name}${sep}${REDACTED}` : m,
    )
    .replace(/\b(bearer|basic)\s+(?!\[REDACTED\])[A-Za-z0-9._~+/=-]{8,}/gi, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    // scheme://user:pass@host and scheme://token@host: the whole userinfo goes.
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@"']+@/gi, (_m, scheme: string) => `${scheme}${REDACTED}@`)
    // ?token=X&api_key=Y
    .replace(/([?&])([^=&\s#"']+)=([^&\s#"']*)/g, (m, lead: string, name: string) =>
      isCredentialName(name) || CREDENTIAL_PARAMS.has(name.toLowerCase()) ? `${lead}${name}=${REDACTED}` : m,
    )
    // NAME=value as an environment assignment (`env TOKEN=x cmd`, `export API_KEY=x`) or in a config line.
    .replace(/(^|[\s;&|(`'"])([A-Za-z_][A-Za-z0-9_.-]*)=("[^"]*"|'[^']*'|[^\s;&|)`'"]*)/g, (m, lead: string, name: string, value: string) =>
      isCredentialName(name) && !value.startsWith(REDACTED) ? `${lead}${name}=${REDACTED}` : m,
    )
    // --api-key=X, --token X inside a command string.
    .replace(/(^|\s)(--?[A-Za-z0-9][A-Za-z0-9_.-]*)(=|\s+)("[^"]*"|'[^']*'|[^\s;&|]+)/g, (m, lead: string, flag: string, sep: string, value: string) =>
      isCredentialName(flag.replace(/^-+/, '')) && !value.startsWith('-') && !value.startsWith(REDACTED) ? `${lead}${flag}${sep}${REDACTED}` : m,
    )
    // mysql -pSECRET / mysql -p SECRET inside a command string.
    .replace(
      /(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|sshpass)\b[^;&|\n]*?\s-p)(\s*)([^\s;&|]+)/g,
      (_m, head: string, space: string) => `${head}${space}${REDACTED}`,
    )
    // curl -u user:pass / --user user:pass inside a command string.
    .replace(
      /(^|\s)(-u|--user|--proxy-user)(=|\s+)([^\s:;&|'"]+):([^\s;&|'"]+)/g,
      (_m, lead: string, flag: string, sep: string, user: string) => `${lead}${flag}${sep}${user}:${REDACTED}`,
    );
  for (const pattern of DETECTOR_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/**
 * Redacts an argv: the value after (or glued to) a credential-like flag, `-p` of the programs that
 * take a password there, the password of `-u user:password`, and every credential form inside each
 * argument (redactText). The argv keeps its length, so a reader can still line it up.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const program = (argv[0] ?? '').split('/').pop() ?? '';
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const glued = /^(--?[A-Za-z0-9][A-Za-z0-9_.-]*)=(.*)$/s.exec(arg);
    if (glued && isCredentialName((glued[1] as string).replace(/^-+/, ''))) {
      out.push(`${glued[1] as string}=${REDACTED}`);
      continue;
    }
    const next = argv[i + 1];
    const isFlag = /^--?[A-Za-z]/.test(arg);
    if (isFlag && next !== undefined && !next.startsWith('-')) {
      if (USER_PASSWORD_FLAGS.has(arg) && next.includes(':')) {
        out.push(arg, `${next.slice(0, next.indexOf(':'))}:${REDACTED}`);
        i++;
        continue;
      }
      if ((/^--?[A-Za-z0-9][\w.-]*$/.test(arg) && isCredentialName(arg.replace(/^-+/, ''))) || (arg === '-p' && PASSWORD_P_PROGRAMS.has(program))) {
        out.push(arg, REDACTED);
        i++;
        continue;
      }
    }
    if (PASSWORD_P_PROGRAMS.has(program) && /^-p.+/.test(arg)) {
      out.push(`-p${REDACTED}`);
      continue;
    }
    out.push(redactText(arg));
  }
  return out;
}
