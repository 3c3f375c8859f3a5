/** One set of credential rules for every record Crucible writes (manifests, traces, incidents). */
export { isCredentialName, redactArgv, redactText, REDACTED } from './redact.js';
