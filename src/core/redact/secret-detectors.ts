import type { SecretPreset } from '../types/index.js';

export interface SecretDetector {
  id: string;
  preset: SecretPreset;
  regex: RegExp;
  /** Globs of paths that are a secret by name alone (e.g. a private key file). */
  paths?: string[];
}

/**
 * Built-in detectors, grouped by opt-in preset. Patterns follow the providers' documented token
 * formats; they look at added lines only, so a repo's existing fixtures never fire. Values that
 * providers publish as examples (`…EXAMPLE`) are ignored.
 */
export const SECRET_DETECTORS: SecretDetector[] = [
  { id: 'aws-access-key-id', preset: 'cloud-keys', regex: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { id: 'aws-secret-access-key', preset: 'cloud-keys', regex: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}\b/gi },
  { id: 'gcp-api-key', preset: 'cloud-keys', regex: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: 'gcp-service-account', preset: 'cloud-keys', regex: /"type"\s*:\s*"service_account"/g },
  { id: 'azure-storage-key', preset: 'cloud-keys', regex: /AccountKey=[A-Za-z0-9+/]{86}==/g },
  {
    id: 'private-key',
    preset: 'private-keys',
    regex: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----/g,
    paths: ['**/id_rsa', '**/id_ecdsa', '**/id_ed25519', '**/*.pem', '**/*.p12', '**/*.pfx', '**/*.key'],
  },
  { id: 'github-token', preset: 'tokens', regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})\b/g },
  { id: 'gitlab-token', preset: 'tokens', regex: /\bglpat-[A-Za-z0-9_-]{20}\b/g },
  { id: 'slack-token', preset: 'tokens', regex: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { id: 'stripe-live-key', preset: 'tokens', regex: /\b[rs]k_live_[A-Za-z0-9]{24,}\b/g },
  {
    id: 'openai-api-key',
    preset: 'tokens',
    regex: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}\b|\bsk-proj-[A-Za-z0-9_-]{40,}\b/g,
  },
  { id: 'anthropic-api-key', preset: 'tokens', regex: /\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{80,}\b/g },
  { id: 'npm-token', preset: 'tokens', regex: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: 'pypi-token', preset: 'tokens', regex: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}\b/g },
  { id: 'openrouter-api-key', preset: 'tokens', regex: /\bsk-or-v1-[0-9a-f]{64}\b/g },
  // Long-term Bedrock API keys are base64 of "BedrockAPIKey-…" behind an ABSK prefix.
  { id: 'aws-bedrock-api-key', preset: 'cloud-keys', regex: /\bABSK[A-Za-z0-9+/]{40,}={0,2}/g },
  { id: 'google-oauth-access-token', preset: 'tokens', regex: /\bya29\.[0-9A-Za-z_-]{20,}/g },
  { id: 'jwt', preset: 'tokens', regex: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g },
];

/**
 * Published example values (AWS's `AKIAIOSFODNN7EXAMPLE`) and placeholders (`AKIAXXXXXXXXXXXXXXXX`,
 * `ghp_000…`) are documentation, not leaks: a run of eight equal characters is a shape a generated
 * key all but never has (about 1 in 10^8 for a 16-character AWS key id), and a hand-typed filler always has.
 */
export function isExampleValue(value: string): boolean {
  return /EXAMPLE/i.test(value) || /(.)\1{7}/.test(value);
}
