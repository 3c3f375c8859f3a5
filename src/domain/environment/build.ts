import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type Docker from 'dockerode';
import { HOST_IMAGE } from '../../infra/docker/index.js';
import type { BuildContext, HashedContext } from './context-hash.js';
import { finalBase } from './dockerfile.js';
import { CONTEXT_HASH_LABEL, HOST_VIEW_LABEL, envTag } from './labels.js';

/** A build the engine refused or a Dockerfile step that failed: `tail` holds the build's last lines. */
export class BuildError extends Error {
  constructor(
    message: string,
    readonly tail: string[],
  ) {
    super(message);
    this.name = 'BuildError';
  }
}

interface BuildEvent {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** How many of the build's last lines a failure carries. */
const TAIL_LINES = 5;

/**
 * Builds the context into `envTag(hash)`, labelled with the full hash (and HOST_VIEW_LABEL when its
 * final stage is FROM HOST_IMAGE). Never pulls a base: what the build needs must be local.
 */
export async function buildContext(client: Docker, input: BuildContext, hashed: HashedContext, onProgress: (line: string) => void): Promise<void> {
  const dockerfile = relative(input.context, input.dockerfile).split(sep).join('/');
  const labels: Record<string, string> = { [CONTEXT_HASH_LABEL]: hashed.hash };
  if (finalBase(await readFile(input.dockerfile, 'utf8')) === HOST_IMAGE) labels[HOST_VIEW_LABEL] = '1';
  const stream = await client.buildImage(
    { context: input.context, src: hashed.files },
    {
      t: envTag(hashed.hash),
      dockerfile,
      buildargs: { ...input.buildArgs },
      labels,
      ...(input.platform ? { platform: input.platform } : {}),
      rm: true,
      forcerm: true,
    },
  );
  const lines: string[] = [];
  let failure: string | undefined;
  await new Promise<void>((resolve, reject) => {
    client.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (event: BuildEvent) => {
        if (event.error !== undefined) failure ??= event.errorDetail?.message ?? event.error;
        for (const line of (event.stream ?? event.status ?? '').split('\n')) {
          const text = line.trimEnd();
          if (text === '') continue;
          lines.push(text);
          if (lines.length > 200) lines.shift();
          onProgress(`build ${envTag(hashed.hash)}: ${text}`);
        }
      },
    );
  }).catch((error: unknown) => {
    failure ??= error instanceof Error ? error.message : String(error);
  });
  if (failure !== undefined) throw new BuildError(failure.trim(), lines.slice(-TAIL_LINES));
}
