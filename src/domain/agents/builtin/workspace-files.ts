import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { ExecResult, Executor } from '../../../infra/sandbox/index.js';

/** A tool failure the model caused and can fix; its message goes back to the model as the tool's result. */
export class ToolError extends Error {
  override name = 'ToolError';
}

export interface WorkspaceAccess {
  /** Absolute workspace path, the executor's cwd. */
  root: string;
  executor: Executor;
  signal: AbortSignal;
}

const FILE_OP_TIMEOUT_MS = 30_000;
const MAX_READ_BYTES = 8 * 1024 * 1024;

/**
 * A model-given path as a workspace-relative one. Absolute paths inside the workspace are accepted;
 * anything that leaves it — `..`, an absolute path elsewhere, or a symlink (at any depth) that
 * resolves outside — is a ToolError. The file operations themselves still run in the sandbox.
 */
export async function confine(ws: WorkspaceAccess, path: string): Promise<string> {
  const given = path.trim();
  if (given === '') throw new ToolError('path is empty');
  const target = resolve(ws.root, given);
  const rel = relative(ws.root, target);
  if (escapes(rel)) throw new ToolError(`${given} is outside the repository (use a path relative to the repository root)`);
  const realRoot = await realpath(ws.root);
  const real = await realpath(await deepestExisting(target));
  if (escapes(relative(realRoot, real))) {
    throw new ToolError(`${given} leads outside the repository through a symbolic link`);
  }
  return rel === '' ? '.' : rel;
}

function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

async function deepestExisting(path: string): Promise<string> {
  let current = path;
  for (;;) {
    try {
      await realpath(current);
      return current;
    } catch {
      const parent = dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

export async function exec(
  ws: WorkspaceAccess,
  argv: string[],
  options: { stdin?: string; timeoutMs?: number; maxOutputBytes?: number } = {},
): Promise<ExecResult> {
  return ws.executor.exec({
    argv,
    cwd: ws.root,
    timeoutMs: options.timeoutMs ?? FILE_OP_TIMEOUT_MS,
    network: 'none',
    signal: ws.signal,
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
  });
}

export async function readText(ws: WorkspaceAccess, rel: string): Promise<string> {
  const result = await exec(ws, ['cat', '--', rel], { maxOutputBytes: MAX_READ_BYTES });
  if (result.exitCode !== 0) throw new ToolError(firstLine(result.stderr) || `cannot read ${rel}`);
  if (result.truncated) throw new ToolError(`${rel} is larger than ${MAX_READ_BYTES} bytes; use bash (head, sed -n, grep) to read parts of it`);
  if (result.stdout.includes('\0')) throw new ToolError(`${rel} is a binary file`);
  return result.stdout;
}

export async function writeText(ws: WorkspaceAccess, rel: string, content: string): Promise<void> {
  const script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"';
  const result = await exec(ws, ['sh', '-c', script, 'write_file', rel], { stdin: content });
  if (result.exitCode !== 0) throw new ToolError(firstLine(result.stderr) || `cannot write ${rel}`);
}

/** Directories no model needs listed or searched: VCS data, dependencies, caches. */
export const SKIPPED_DIRS = ['.git', 'node_modules', '__pycache__', '.pytest_cache', '.venv', 'venv', 'dist', 'build', 'target', '.mypy_cache'];

export function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
