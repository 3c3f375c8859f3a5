/** The attempt's workspace as git sees it: git plumbing, the baseline commit, tree edits and materialising trees. */
export { git, gitBytes, gitToFile, extractCommit, GitError, GIT_ENV, type GitTarget, type HeldTree, type ToFileResult } from './git.js';
export {
  commitBaseline,
  baselineCommitCount,
  forkBaseline,
  addWorkspaceRepo,
  copyIndex,
  withoutSetupOutputs,
  NESTED_GIT_NAME,
  RUNTIME_DEBRIS,
  type Baseline,
} from './baseline.js';
export { copyTree, materializeTree, treeCopyCount, type MaterializeInput } from './materialize.js';
export { removeTree } from './remove-tree.js';
export { editTree, overlayDirectory, entry, removal, type IndexUpdate } from './tree-edit.js';
export { listTree, setupOutputs, excludeLines, type TreeListing } from './setup-outputs.js';
export { overlayTree, overlaySupported, removeOverlayScratch, OverlayConflictError, type OverlayTreeInput } from './tree-overlay.js';
