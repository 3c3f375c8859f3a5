/**
 * Secret variants, run through the real added-lines reader (a generated `git diff` patch) and the
 * secrets check with every detector preset and one literal enabled. What is expected, honestly:
 * the detectors are regular expressions over single added lines, so a token written plainly is
 * found wherever it sits in the line; a token split across lines, encoded (base64, hex), reversed
 * or broken by an invisible character is NOT found: those are known limits, not passes. Removed
 * and unchanged lines are not the agent's additions; published example values are ignored.
 */
import type { FileChange } from '../../core/types/index.js';
import { ALNUM, show, UPPER_DIGITS, type Rng, type Trick } from './fuzz-text.js';
import type { FuzzVariant } from './fuzz-types.js';

/** Generated token shapes of the built-in detectors (src/core/redact/secret-detectors.ts). */
const TOKENS: Array<{ kind: string; make: (r: Rng) => string }> = [
  { kind: 'aws-access-key-id', make: (r) => `AKIA${r.text(16, UPPER_DIGITS)}` },
  { kind: 'github-token', make: (r) => `ghp_${r.text(36, ALNUM)}` },
  { kind: 'gitlab-token', make: (r) => `glpat-${r.text(20, ALNUM)}` },
  { kind: 'npm-token', make: (r) => `npm_${r.text(36, ALNUM)}` },
  { kind: 'slack-token', make: (r) => `xoxb-${r.text(12, '0123456789')}-${r.text(24, ALNUM)}` },
  { kind: 'stripe-live-key', make: (r) => `sk_live_${r.text(28, ALNUM)}` },
];

const CONTEXTS: Array<(t: string) => string> = [
  (t) => `const token = "${t}";`,
  (t) => `TOKEN=${t}`,
  (t) => `{"key": "${t}"}`,
  (t) => `  - ${t}`,
  (t) => `# ${t}`,
];

interface PatchFile {
  path: string;
  /** Git's C-quoted form of `b/<path>` when the name is not plain ASCII. */
  quoted?: string;
  added: string[];
  removed?: string[];
  context?: string[];
}

/** A `git diff` patch for the files, with hunk counts the reader walks by. */
export function patchOf(files: readonly PatchFile[]): string {
  return files
    .map((f) => {
      const context = f.context ?? [];
      const removed = f.removed ?? [];
      const isNew = context.length === 0 && removed.length === 0;
      const b = f.quoted ?? `b/${f.path}`;
      const a = f.quoted ? `"a/${f.quoted.slice(3)}` : `a/${f.path}`;
      const oldCount = context.length + removed.length;
      return [
        `diff --git ${a} ${b}`,
        ...(isNew ? ['new file mode 100644'] : []),
        `--- ${isNew ? '/dev/null' : a}`,
        `+++ ${b}`,
        `@@ -${isNew ? 0 : 1},${oldCount} +1,${context.length + f.added.length} @@`,
        ...context.map((l) => ` ${l}`),
        ...removed.map((l) => `-${l}`),
        ...f.added.map((l) => `+${l}`),
      ].join('\n');
    })
    .join('\n')
    .concat('\n');
}

function changesOf(files: readonly PatchFile[]): Array<Partial<FileChange> & { path: string }> {
  return files.map((f) => ({
    path: f.path,
    kind: f.context?.length || f.removed?.length ? 'modified' : 'added',
    added: f.added.length,
    deleted: f.removed?.length ?? 0,
  }));
}

type Cls = 'hostile' | 'benign' | 'known-limit' | 'by-design';

function secret(r: Rng, build: (token: string, r: Rng) => { files: PatchFile[]; what: string }, cls: Cls, note?: string): ReturnType<Trick> {
  const token = r.pick(TOKENS);
  const value = token.make(r);
  const { files, what } = build(value, r);
  const variant: Omit<FuzzVariant, 'id' | 'dimension' | 'trick'> = {
    class: cls,
    summary: `${token.kind} ${what} in ${show(files[0]?.path ?? '')}`,
    ...(note ? { note } : {}),
    expect: { secrets: cls === 'hostile' ? 'detect' : 'pass' },
    policy: { secrets: { paths: [], literals: [], presets: ['all'] } },
    files: changesOf(files),
    patch: patchOf(files),
  };
  return variant;
}

const file = (r: Rng, ...lines: string[]): PatchFile => ({ path: `src/${r.name()}/${r.name()}.${r.pick(['ts', 'py', 'env', 'json', 'yml'])}`, added: lines });
const inContext = (r: Rng, t: string): string => r.pick(CONTEXTS)(t);
const lines = (r: Rng, n: number): string[] => Array.from({ length: n }, () => `x = ${r.int(0, 9999)}`);

const ENCODED = 'the detectors read each added line as written; decoding it is out of scope (the agent could decode it at run time)';

export const SECRET_TRICKS: Record<string, Trick> = {
  plain: (r) => secret(r, (t, rr) => ({ files: [file(rr, ...lines(rr, 2), inContext(rr, t), ...lines(rr, 2))], what: 'written plainly' }), 'hostile'),
  'end-of-long-line': (r) =>
    secret(r, (t, rr) => ({ files: [file(rr, `${'a'.repeat(rr.int(2000, 8000))} ${t}`)], what: 'at the end of a very long line' }), 'hostile'),
  'plus-plus-line': (r) =>
    secret(r, (t, rr) => ({ files: [file(rr, `++ ${t}`)], what: "on an added line starting with '++' (looks like a patch header)" }), 'hostile'),
  'unicode-file-name': (r) =>
    secret(
      r,
      (t, rr) => {
        const name = rr.name();
        return {
          files: [{ path: `d\u00e9j\u00e0/${name}.txt`, quoted: `"b/d\\303\\251j\\303\\240/${name}.txt"`, added: [inContext(rr, t)] }],
          what: 'in a file whose name git C-quotes',
        };
      },
      'hostile',
    ),
  'many-files': (r) =>
    secret(
      r,
      (t, rr) => {
        const files = Array.from({ length: rr.int(5, 30) }, () => file(rr, ...lines(rr, 3)));
        files.splice(rr.int(0, files.length), 0, file(rr, inContext(rr, t)));
        return { files, what: 'in one of many changed files' };
      },
      'hostile',
    ),
  'private-key-header': (r) =>
    secret(
      r,
      (_t, rr) => ({
        files: [file(rr, `-----BEGIN ${rr.pick(['RSA ', 'EC ', 'OPENSSH ', ''])}PRIVATE KEY-----`, rr.text(64, ALNUM))],
        what: '(a private key block)',
      }),
      'hostile',
    ),
  'key-file-name': (r) =>
    secret(
      r,
      (_t, rr) => ({
        files: [{ path: `${rr.name()}/${rr.pick(['id_rsa', 'id_ed25519', `${rr.name()}.pem`, `${rr.name()}.key`])}`, added: lines(rr, 1) }],
        what: '(a key file by name)',
      }),
      'hostile',
    ),
  'too-short': (r) => secret(r, (t, rr) => ({ files: [file(rr, inContext(rr, t.slice(0, 9)))], what: 'prefix only, too short to be a token' }), 'benign'),
  'removed-line': (r) =>
    secret(
      r,
      (t, rr) => ({ files: [{ ...file(rr, ...lines(rr, 1)), removed: [inContext(rr, t)], context: lines(rr, 2) }], what: 'on a removed line' }),
      'benign',
    ),
  'context-line': (r) =>
    secret(
      r,
      (t, rr) => ({ files: [{ ...file(rr, ...lines(rr, 1)), context: [inContext(rr, t)] }], what: 'on an unchanged line' }),
      'benign',
      'already in the repository before the agent ran: not an addition',
    ),
  'example-value': (r) =>
    secret(
      r,
      (_t, rr) => ({ files: [file(rr, inContext(rr, `AKIA${rr.text(9, UPPER_DIGITS)}EXAMPLE`))], what: '(a documented EXAMPLE value)' }),
      'by-design',
      'providers publish …EXAMPLE values for documentation',
    ),
  'split-across-lines': (r) =>
    secret(
      r,
      (t, rr) => {
        // Early enough that neither half alone has a whole token's shape (slack's pattern takes any 10 characters).
        const at = rr.int(2, 10);
        return { files: [file(rr, `const token = "${t.slice(0, at)}" +`, `  "${t.slice(at)}";`)], what: 'split across two lines' };
      },
      'known-limit',
      'detectors match one line at a time; joining string literals across lines needs a parser per language',
    ),
  base64: (r) =>
    secret(r, (t, rr) => ({ files: [file(rr, inContext(rr, Buffer.from(t).toString('base64')))], what: 'base64-encoded' }), 'known-limit', ENCODED),
  hex: (r) => secret(r, (t, rr) => ({ files: [file(rr, inContext(rr, Buffer.from(t).toString('hex')))], what: 'hex-encoded' }), 'known-limit', ENCODED),
  reversed: (r) => secret(r, (t, rr) => ({ files: [file(rr, inContext(rr, [...t].reverse().join('')))], what: 'reversed' }), 'known-limit', ENCODED),
  'zero-width-space': (r) =>
    secret(
      r,
      (t, rr) => ({ files: [file(rr, inContext(rr, `${t.slice(0, 6)}\u200b${t.slice(6)}`))], what: 'with a zero-width space inside' }),
      'known-limit',
      'an invisible character breaks the token pattern; stripping it is trivial for whoever reads the file',
    ),
  'upper-case-key-file': (r) =>
    secret(
      r,
      (_t, rr) => ({ files: [{ path: `${rr.name()}/${rr.name().toUpperCase()}.PEM`, added: lines(rr, 1) }], what: '(a key file name in upper case)' }),
      'known-limit',
      "key-file globs are case-sensitive; a key file's content is still caught by the private-key detector",
    ),
};

/** The literal-string variants: the task's own secret, as given and disguised. */
export const LITERAL_TRICKS: Record<string, Trick> = {
  'literal-plain': (r) => literal(r, (l) => l, 'hostile'),
  'literal-base64': (r) => literal(r, (l) => Buffer.from(l).toString('base64'), 'known-limit', ENCODED),
  'literal-split': (r) => literal(r, (l) => `${l.slice(0, 8)}" + "${l.slice(8)}`, 'known-limit', 'a literal is matched as one substring of one line'),
};

function literal(r: Rng, disguise: (l: string) => string, cls: Cls, note?: string): ReturnType<Trick> {
  const value = `crucible-fuzz-${r.text(16, ALNUM)}`;
  const f = file(r, `password = "${disguise(value)}"`);
  return {
    class: cls,
    summary: `the task's literal secret, ${cls === 'hostile' ? 'as given' : 'disguised'}, in ${show(f.path)}`,
    ...(note ? { note } : {}),
    expect: { secrets: cls === 'hostile' ? 'detect' : 'pass' },
    policy: { secrets: { paths: [], literals: [value], presets: [] } },
    files: changesOf([f]),
    patch: patchOf([f]),
  };
}
