/**
 * Execution manifests (docs/evidence.md#manifests): per attempt and per run, what ran (Crucible,
 * host, sandbox, image, task set, repo, oracle, held-out files, policy, agent, pricing) and the
 * SHA-256 of every artifact kept, in canonical JSON; and their verification, which runs nothing.
 */
export { canonicalize, canonicalJson, sha256Hex } from './canonical.js';
export { walkArtifacts, sha256File, type ArtifactEntry, type WalkOptions } from './artifacts.js';
export { crucibleFacts, hostFacts, type CrucibleFacts, type HostFacts } from './host.js';
export { taskFacts, type TaskFacts } from './task-facts.js';
export { attemptJsonText, buildAttemptManifest, writeAttemptManifest, type AttemptManifestInput, type ManifestSubject } from './attempt-manifest.js';
export { buildRunManifest, writeRunManifest, RUN_DERIVED, type RunManifestInput } from './run-manifest.js';
export { MANIFEST_FILE, MANIFEST_SCHEMA_VERSION, type AgentFacts, type AttemptManifest, type RunAttemptEntry, type RunManifest } from './schema.js';
export { manifestText } from './write.js';
export { verifyRunDir, type ManifestProblem, type ProblemKind, type VerifyReport } from './verify.js';
