/**
 * Container-native tasks (issue 27): a task whose files live in its image (Harbor's `/app`). Its
 * workdir's contents are copied out of the image into the attempt's workspace before setup, and
 * the workspace is mounted at the workdir in every phase, so the agent works there on the image's
 * own files, the change is captured from the workspace as for any task, and each test run sees
 * the fresh copy of its tree at the same path.
 */
import { spawn } from 'node:child_process';
import type Docker from 'dockerode';
import type { TaskEnvironment } from '../../core/types/index.js';

/**
 * The workdir in the container: as set, or the image's WORKDIR (`image`); undefined for a task
 * that is not container-native, and for `image` when the image sets no WORKDIR (or `/`): its
 * files are then its repo alone, in the workspace, as for any task.
 */
export function workdirOf(env: TaskEnvironment | undefined, resolved: { imageWorkdir: string }): string | undefined {
  if (env?.workdir === undefined) return undefined;
  const path = env.workdir === 'image' ? resolved.imageWorkdir.replace(/\/+$/, '') : env.workdir;
  return path.startsWith('/') && path.length > 1 ? path : undefined;
}

/**
 * Copies the contents of `workdir` in `imageId` into `dest` (which may already hold the task's
 * repo: the image's files are laid over it). The container is created, never started: nothing of
 * the image runs. The archive is the engine's (GET /containers/{id}/archive), unpacked by the
 * host's tar without owners, whose member checks keep every entry inside `dest`. A workdir the
 * image does not have copies nothing: the task's files are then the repo alone.
 */
export async function copyImageWorkdir(client: Docker, imageId: string, workdir: string, dest: string, labels: Record<string, string> = {}): Promise<void> {
  // The owner label lets the sweep remove it should Crucible die before it does.
  const container = await client.createContainer({
    Image: imageId,
    Cmd: ['/crucible-never-started'],
    NetworkDisabled: true,
    Labels: { ...labels, 'dev.crucible.workdir-copy': '1' },
  });
  try {
    let archive: NodeJS.ReadableStream;
    try {
      archive = await container.getArchive({ path: `${workdir}/.` });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return;
      throw error;
    }
    await untar(archive, dest);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

function untar(archive: NodeJS.ReadableStream, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-x', '-f', '-', '-C', dest, '--no-same-owner', '--no-same-permissions'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    tar.on('error', reject);
    tar.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`unpacking the image's workdir failed: ${stderr.trim().split('\n')[0] ?? `tar exited ${code}`}`)),
    );
    archive.on('error', reject);
    archive.pipe(tar.stdin);
  });
}
