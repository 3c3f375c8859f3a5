import { createExecutor, sandboxTraits } from '../../src/infra/sandbox/index.js';
import type { SandboxKind } from '../../src/infra/sandbox/index.js';
import { describeConformance } from './helpers/conformance-suite.js';

/** The executor contract (helpers/conformance-suite.ts) for each executor on this machine. */
const KINDS: SandboxKind[] = ['local', 'bwrap', 'docker'];

for (const kind of KINDS) {
  describeConformance(`${kind} executor`, kind, (layout) => createExecutor(kind, layout, { killGraceMs: 300 }), {
    path: process.env.PATH,
    hostToolchain: true,
    hostPaths: true,
    networkModes: sandboxTraits(kind).networkModes,
  });
}
