/** Tasks as the engine uses them: which to run, where their repo comes from, what is wrong with them. */
export { selectTasks, type TaskSelection } from './select.js';
export { repoKey, taskRepoKey, taskRepoKeys } from './repo-key.js';
export { materializeRepo, ensureGitCache, RepoSourceError } from './repo-source.js';
export { npmTarball, prepareNpmParts, NpmSourceError } from './npm-source.js';
export { baselineDefects, failToPassMissing, oracleDefect, repoDefect, formatDefect, taskWhere, type TaskWhere } from './defects.js';
