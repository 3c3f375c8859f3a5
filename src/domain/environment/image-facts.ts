import type Docker from 'dockerode';
import { HOST_VIEW_LABEL } from './labels.js';

/** What the engine says about a local image: enough for provenance and for the executor. */
export interface ImageFacts {
  /** `sha256:…`, the local image id. */
  id: string;
  /** `os/arch[/variant]`. */
  platform: string;
  repoDigests: string[];
  labels: Record<string, string>;
  /** ISO time the engine created the image. */
  created: string;
  /** The image's WORKDIR; empty when it sets none. */
  workingDir: string;
}

/** The facts of `ref`, or undefined when the engine has no such image. */
export async function inspectImage(client: Docker, ref: string): Promise<ImageFacts | undefined> {
  try {
    const info = await client.getImage(ref).inspect();
    const variant = (info as { Variant?: string }).Variant;
    return {
      id: info.Id,
      platform: [info.Os, info.Architecture, ...(variant ? [variant] : [])].join('/'),
      repoDigests: info.RepoDigests ?? [],
      labels: info.Config?.Labels ?? {},
      created: info.Created,
      workingDir: info.Config?.WorkingDir ?? '',
    };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

/** Whether containers of the image see the host's toolchain (HOST_IMAGE or an image built on it). */
export function isHostView(facts: ImageFacts, hostImageId: string | undefined): boolean {
  return facts.id === hostImageId || facts.labels[HOST_VIEW_LABEL] === '1';
}

/**
 * The RepoDigest that names the reference's repository (`name@sha256:…`), else the first one, else
 * null: a local build or a tag never pushed has none, and says so rather than inventing one.
 */
export function repoDigestOf(facts: ImageFacts, reference: string): string | null {
  const repository = repositoryOf(reference);
  return facts.repoDigests.find((d) => d.split('@')[0] === repository) ?? facts.repoDigests[0] ?? null;
}

/** `registry:5000/a/b:tag@sha256:x` → `registry:5000/a/b`; a bare name gets Docker's `docker.io/library/`-less form. */
function repositoryOf(reference: string): string {
  const noDigest = reference.split('@')[0] ?? reference;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** Only a digest pins content; a tag (`latest` or `3.12`) may name another image tomorrow. */
export function pinsContent(reference: string): boolean {
  return /@sha256:[a-f0-9]{64}$/.test(reference);
}
