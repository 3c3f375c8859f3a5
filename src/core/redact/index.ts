/** One set of credential rules for every record Crucible writes (manifests, traces, incidents). */
export { isCredentialName, redactArgv, redactText, REDACTED } from './redact.js';
/** The secret shapes redaction hides are the secrets check's detectors: one list for both. */
export { isExampleValue, SECRET_DETECTORS } from './secret-detectors.js';
