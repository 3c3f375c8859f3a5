/**
 * Path variants for forbidden_paths and scope. Expected behaviour, decided here and documented in
 * docs/diagnostics.md: paths are compared as the Linux filesystem compares them, byte for byte and
 * case-sensitively, after lexical clean-up (`./`, `//`, `/./`, `a/..`, `\` as a separator). So a
 * fullwidth, combining-accent, homoglyph or upper-case lookalike of a forbidden path is another
 * file (by design: nothing that reads `.github/` reads it), while for an allow list (scope) the
 * same lookalike is simply outside it and is detected.
 */
import { combining, fullwidth, homoglyph, show, turkishUpper, type Rng, type Trick } from './fuzz-text.js';

interface Target {
  pattern: string;
  /** The path's segments, and which one the pattern's literal part is (the one tricks disguise). */
  segments: string[];
  key: number;
  /** Where the pattern's `**` lets any directories be inserted and still match; none for exact patterns. */
  growAt?: number;
}

const FORBIDDEN: Array<(r: Rng) => Target> = [
  (r) => ({ pattern: '.github/**', segments: ['.github', 'workflows', `${r.name()}.yml`], key: 0, growAt: 1 }),
  (r) => ({ pattern: 'secrets/**', segments: ['secrets', r.name(), `${r.name()}.json`], key: 0, growAt: 1 }),
  (r) => ({ pattern: '**/.env', segments: [r.name(), '.env'], key: 1, growAt: 0 }),
  () => ({ pattern: 'config/prod.yaml', segments: ['config', 'prod.yaml'], key: 0 }),
  (r) => ({ pattern: 'infra/*.tf', segments: ['infra', `${r.name()}.tf`], key: 0 }),
];

const join = (segments: readonly string[]): string => segments.join('/');

function disguise(t: Target, how: (s: string) => string): string {
  return join(t.segments.map((s, i) => (i === t.key ? how(s) : s)));
}

type Built = { path: string; oldPath?: string; kind?: 'deleted' | 'renamed' };

function forbidden(r: Rng, build: (t: Target, r: Rng) => Built, cls: 'hostile' | 'benign' | 'by-design', note?: string, growable = false): ReturnType<Trick> {
  const t = r.pick(growable ? FORBIDDEN.slice(0, 3) : FORBIDDEN)(r);
  const change = build(t, r);
  return {
    class: cls,
    summary: `forbidden ${t.pattern}; changed ${show(change.path)}${change.oldPath ? ` (from ${show(change.oldPath)})` : ''}${change.kind === 'deleted' ? ' (deleted)' : ''}`,
    ...(note ? { note } : {}),
    expect: { forbidden_paths: cls === 'hostile' ? 'detect' : 'pass' },
    policy: { forbiddenPaths: [t.pattern] },
    files: [{ path: change.path, ...(change.oldPath ? { oldPath: change.oldPath } : {}), kind: change.kind ?? 'modified' }],
  };
}

/** The target with directories inserted where its pattern's `**` stands. */
function grow(t: Target, dirs: readonly string[]): string {
  const at = t.growAt ?? t.segments.length - 1;
  return join([...t.segments.slice(0, at), ...dirs, ...t.segments.slice(at)]);
}

const OTHER_FILE = 'the filesystem and git see a different name, which nothing reading the forbidden path reads; matching is byte-exact on purpose';

export const PATH_TRICKS: Record<string, Trick> = {
  exact: (r) => forbidden(r, (t) => ({ path: join(t.segments) }), 'hostile'),
  'dot-slash': (r) => forbidden(r, (t) => ({ path: `./${join(t.segments)}` }), 'hostile'),
  'double-slash': (r) =>
    forbidden(
      r,
      (t, rr) => {
        const at = rr.int(1, t.segments.length - 1);
        return { path: `${join(t.segments.slice(0, at))}//${join(t.segments.slice(at))}` };
      },
      'hostile',
    ),
  'dot-segment': (r) => forbidden(r, (t) => ({ path: `${t.segments[0]}/./${join(t.segments.slice(1))}` }), 'hostile'),
  'dotdot-detour': (r) => forbidden(r, (t, rr) => ({ path: `${rr.name()}/../${join(t.segments)}` }), 'hostile'),
  backslash: (r) => forbidden(r, (t) => ({ path: t.segments.join('\\') }), 'hostile'),
  'deep-path': (r) =>
    forbidden(
      r,
      (t, rr) => ({
        path: grow(
          t,
          Array.from({ length: rr.int(40, 120) }, () => rr.name()),
        ),
      }),
      'hostile',
      undefined,
      true,
    ),
  'long-name': (r) => forbidden(r, (t, rr) => ({ path: grow(t, [rr.text(rr.int(200, 250))]) }), 'hostile', undefined, true),
  'renamed-away': (r) => forbidden(r, (t, rr) => ({ path: `src/${rr.name()}.txt`, oldPath: join(t.segments), kind: 'renamed' }), 'hostile'),
  deleted: (r) => forbidden(r, (t) => ({ path: join(t.segments), kind: 'deleted' }), 'hostile'),
  'near-miss': (r) => forbidden(r, (t) => ({ path: disguise(t, (s) => `${s}x`) }), 'benign'),
  'nested-copy': (r) => {
    // A root-anchored pattern does not cover the same names deeper down; `**/` patterns do.
    const v = forbidden(r, (t, rr) => ({ path: `${rr.name()}/${join(t.segments)}` }), 'benign');
    const pattern = v.policy?.forbiddenPaths?.[0] ?? '';
    return pattern.startsWith('**/') ? { ...v, class: 'hostile', expect: { forbidden_paths: 'detect' } } : v;
  },
  'upper-case': (r) => forbidden(r, (t) => ({ path: disguise(t, (s) => s.toUpperCase()) }), 'by-design', `Linux paths are case-sensitive: ${OTHER_FILE}`),
  'turkish-i': (r) => forbidden(r, (t) => ({ path: disguise(t, turkishUpper) }), 'by-design', `dotted capital I (U+0130): ${OTHER_FILE}`),
  fullwidth: (r) => forbidden(r, (t) => ({ path: disguise(t, fullwidth) }), 'by-design', `fullwidth forms: ${OTHER_FILE}`),
  'combining-mark': (r) => forbidden(r, (t) => ({ path: disguise(t, combining) }), 'by-design', `no Unicode normalisation (Linux has none): ${OTHER_FILE}`),
  homoglyph: (r) => forbidden(r, (t) => ({ path: disguise(t, homoglyph) }), 'by-design', `Cyrillic lookalike letter: ${OTHER_FILE}`),
};

const ALLOWED: Array<(r: Rng) => { pattern: string; inside: string[] }> = [
  (r) => ({ pattern: 'src/**', inside: ['src', r.name(), `${r.name()}.ts`] }),
  (r) => ({ pattern: 'lib/*.js', inside: ['lib', `${r.name()}.js`] }),
  (r) => ({ pattern: 'pkg/{api,core}/**', inside: ['pkg', r.pick(['api', 'core']), `${r.name()}.go`] }),
];

function scoped(r: Rng, build: (inside: string[], r: Rng) => { path: string; oldPath?: string }, cls: 'hostile' | 'benign', note?: string): ReturnType<Trick> {
  const a = r.pick(ALLOWED)(r);
  const change = build(a.inside, r);
  return {
    class: cls,
    summary: `allowed ${a.pattern}; changed ${show(change.path)}${change.oldPath ? ` (from ${show(change.oldPath)})` : ''}`,
    ...(note ? { note } : {}),
    expect: { scope: cls === 'hostile' ? 'detect' : 'pass' },
    policy: { allowedPaths: [a.pattern] },
    files: [{ path: change.path, ...(change.oldPath ? { oldPath: change.oldPath, kind: 'renamed' as const } : {}) }],
  };
}

const OUTSIDE = 'an allow list fails closed: a lookalike of an allowed directory is outside it';

export const SCOPE_TRICKS: Record<string, Trick> = {
  inside: (r) => scoped(r, (p) => ({ path: join(p) }), 'benign'),
  'dot-slash-inside': (r) => scoped(r, (p) => ({ path: `./${join(p)}` }), 'benign'),
  'double-slash-inside': (r) => scoped(r, (p) => ({ path: `${p[0] ?? ''}//${join(p.slice(1))}` }), 'benign'),
  'new-test-file': (r) =>
    scoped(r, (_p, rr) => ({ path: `tests/test_${rr.name()}.py` }), 'benign', 'files under the test paths are judged by test_tampering, not scope'),
  outside: (r) => scoped(r, (_p, rr) => ({ path: `${rr.name()}/${rr.name()}.py` }), 'hostile'),
  'dotdot-escape': (r) => scoped(r, (p, rr) => ({ path: `${p[0] ?? ''}/../${rr.name()}/${rr.name()}.sh` }), 'hostile'),
  'upper-case': (r) => scoped(r, (p) => ({ path: join([(p[0] ?? '').toUpperCase(), ...p.slice(1)]) }), 'hostile', OUTSIDE),
  fullwidth: (r) => scoped(r, (p) => ({ path: join([fullwidth(p[0] ?? ''), ...p.slice(1)]) }), 'hostile', OUTSIDE),
  homoglyph: (r) => scoped(r, (p) => ({ path: join([homoglyph(p[0] ?? ''), ...p.slice(1)]) }), 'hostile', OUTSIDE),
  'renamed-out': (r) => scoped(r, (p, rr) => ({ path: `${rr.name()}.txt`, oldPath: join(p) }), 'hostile'),
  'renamed-in': (r) => scoped(r, (p, rr) => ({ path: join(p), oldPath: `${rr.name()}/${rr.name()}.cfg` }), 'hostile'),
};

/** Traversal through the path matchers (the command side is in fuzz-commands.ts). */
export const PATH_TRAVERSAL_TRICKS: Record<string, Trick> = {
  'dotdot-into-forbidden': (r) => forbidden(r, (t, rr) => ({ path: `${rr.name()}/${rr.name()}/../../${join(t.segments)}` }), 'hostile'),
  'dotdot-out-of-allowed': (r) => scoped(r, (p, rr) => ({ path: `${p[0] ?? ''}/${rr.name()}/../../../${rr.name()}` }), 'hostile'),
  'dotdot-within-allowed': (r) => scoped(r, (p, rr) => ({ path: `${p[0] ?? ''}/${rr.name()}/../${join(p.slice(1))}` }), 'benign'),
};
