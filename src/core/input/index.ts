/**
 * Reading a user's input file so that bad input gets one line naming file, line, field and fix:
 * YAML with node positions, and zod issues turned into that line. Every loader of a user file
 * (task sets, agent profiles, suites, registries, ci and pack files) shares it.
 */
export { issueToError, schemaError } from './issue-to-error.js';
export { formatFieldPath, YamlSource, type FieldPath } from './yaml-source.js';
