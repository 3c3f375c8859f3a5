import { execFile } from 'node:child_process';
import { lstat, rm } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Removes a tree that an agent, or code under test, may have shaped, as `rm(path, { recursive,
 * force })` does. fs.rm walks by full paths, so a nest of directories deeper than PATH_MAX stops
 * it (ENAMETOOLONG), and a harness that is not root cannot list a directory the agent made mode
 * 000 (EACCES): either would turn the agent's own doing into a harness error, and leave an
 * attempt directory that no resume can clear. Then GNU `rm -rf` (which walks with openat, at any
 * depth) finishes the job, after `chmod -R u+rwX` has made every directory enterable again
 * (chmod -R never follows a symlink it meets on the way; a symlink at `path` itself is only
 * unlinked). A path given as bytes may be any name, UTF-8 or not.
 */
export async function removeTree(path: string | Buffer): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
    return;
  } catch (error) {
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) return;
    // An argv word is UTF-8, a path need not be: the shell rebuilds its bytes from octal escapes.
    const octal = [...Buffer.from(path)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
    const script = `p="$(printf '${octal}x')"; p="\${p%x}"; ${info.isDirectory() ? 'chmod -R u+rwX -- "$p" 2>/dev/null;' : ''} rm -rf -- "$p"`;
    try {
      await execFileAsync('sh', ['-c', script]);
    } catch {
      // The first failure says what is wrong with the tree; rm's own message would only repeat it.
      throw error;
    }
  }
}
