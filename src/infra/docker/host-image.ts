import { Readable } from 'node:stream';
import type Docker from 'dockerode';

/**
 * Image that holds nothing: containers of it see the host's toolchain through read-only binds
 * (the same allowlist as bwrap). Created locally with an import, never pulled.
 */
export const HOST_IMAGE = 'crucible/host:1';

/** An empty tar archive: two 512-byte zero blocks. */
const EMPTY_TAR = Buffer.alloc(1024);

/** The id of HOST_IMAGE, importing it (an empty root filesystem) when missing. */
export async function ensureHostImage(client: Docker): Promise<string> {
  const existing = await imageId(client, HOST_IMAGE);
  if (existing) return existing;
  const [repo, tag] = HOST_IMAGE.split(':') as [string, string];
  const progress = await client.importImage(Readable.from([EMPTY_TAR]), {
    repo,
    tag,
    message: 'crucible host view: an empty root, the host toolchain is bound in read-only',
  });
  await new Promise<void>((resolve, reject) => client.modem.followProgress(progress, (error: Error | null) => (error ? reject(error) : resolve())));
  const made = await imageId(client, HOST_IMAGE);
  if (!made) throw new Error(`docker import of ${HOST_IMAGE} reported success but the image is missing`);
  return made;
}

/** The local image id of `ref`, or undefined when the engine has no such image. */
export async function imageId(client: Docker, ref: string): Promise<string | undefined> {
  try {
    return (await client.getImage(ref).inspect()).Id;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

/**
 * HOST_IMAGE on an engine that cannot see this machine's paths: there the host's toolchain cannot
 * be bound in, so the image must hold one itself (loaded by the user). Its id, or why it cannot serve.
 */
export async function toolchainHostImage(client: Docker): Promise<{ id: string } | { problem: string }> {
  const info = await client
    .getImage(HOST_IMAGE)
    .inspect()
    .catch((error: { statusCode?: number }) => {
      if (error.statusCode === 404) return undefined;
      throw error;
    });
  if (!info) return { problem: `the engine has no ${HOST_IMAGE}` };
  if (info.Size === 0)
    return { problem: `${HOST_IMAGE} on the engine is empty (it is made for an engine on this machine, which binds the host's toolchain in)` };
  return { id: info.Id };
}
