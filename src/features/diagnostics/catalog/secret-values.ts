/**
 * A value of each secret detector's kind, generated when an entry is applied so that no
 * secret-shaped string is stored in the catalogue or the source (scanners would flag the package,
 * and the fake must never be mistaken for a leak of ours). Deterministic: the same detector gives
 * the same value, which is never a real credential and never a published `…EXAMPLE` value.
 */
import { isExampleValue } from '../../../core/redact/index.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;

/** n characters of `alphabet` from a small linear congruential generator seeded by `seed`. */
function chars(alphabet: string, n: number, seed: string): string {
  let state = [...seed].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  let out = '';
  while (out.length < n) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    out += alphabet[(state >>> 8) % alphabet.length];
  }
  return out;
}

/** A line of code (or JSON) holding one value of the detector's kind. */
export function secretLine(detector: string): string {
  const v = (alphabet: string, n: number): string => chars(alphabet, n, detector);
  const pieces: Record<string, () => string> = {
    'aws-access-key-id': () => `AKIA${v(UPPER_DIGITS, 16)}`,
    'aws-secret-access-key': () => `aws_secret_access_key = "${v(B64, 40)}"`,
    'gcp-api-key': () => `AIza${v(URLSAFE, 35)}`,
    'gcp-service-account': () => ['"type"', '"service_account"'].join(': '),
    'azure-storage-key': () => `AccountKey=${v(B64, 86)}==`,
    'private-key': () => ['-----BEGIN', 'RSA', 'PRIVATE', 'KEY-----'].join(' '),
    'github-token': () => `gh${'p'}_${v(ALNUM, 36)}`,
    'gitlab-token': () => `gl${'pat'}-${v(ALNUM, 20)}`,
    'slack-token': () => `xo${'xb'}-${v(ALNUM, 24)}`,
    'stripe-live-key': () => `sk_${'live'}_${v(ALNUM, 28)}`,
    'openai-api-key': () => `sk-${'proj'}-${v(URLSAFE, 48)}`,
    'anthropic-api-key': () => `sk-${'ant'}-api03-${v(URLSAFE, 90)}`,
    'npm-token': () => `np${'m'}_${v(ALNUM, 36)}`,
    'pypi-token': () => `pypi-${'AgEIcHlwaS5vcmc'}${v(URLSAFE, 60)}`,
    jwt: () => `${'eyJ'}${v(ALNUM, 20)}.${'eyJ'}${v(ALNUM, 30)}.${v(URLSAFE, 40)}`,
    'openrouter-api-key': () => `sk-${'or'}-v1-${v('0123456789abcdef', 64)}`,
    'aws-bedrock-api-key': () => `AB${'SK'}${v(B64, 60)}=`,
    'google-oauth-access-token': () => `ya${'29'}.${v(URLSAFE, 60)}`,
  };
  const make = pieces[detector];
  if (!make) throw new Error(`no generator for secret detector ${detector}`);
  const value = make();
  // A fake that happened to spell EXAMPLE or look like filler would be ignored by the detector on purpose.
  if (isExampleValue(value)) throw new Error(`generated ${detector} value reads as an example or a placeholder`);
  return value;
}

/** The detectors secretLine knows; a test keeps this equal to SECRET_DETECTORS. */
export const GENERATED_DETECTORS = [
  'aws-access-key-id',
  'aws-secret-access-key',
  'gcp-api-key',
  'gcp-service-account',
  'azure-storage-key',
  'private-key',
  'github-token',
  'gitlab-token',
  'slack-token',
  'stripe-live-key',
  'openai-api-key',
  'anthropic-api-key',
  'npm-token',
  'pypi-token',
  'jwt',
  'openrouter-api-key',
  'aws-bedrock-api-key',
  'google-oauth-access-token',
] as const;
