import { dirname, relative } from 'node:path';
import type Docker from 'dockerode';
import { dockerClient, ensureHostImage, HOST_IMAGE } from '../../infra/docker/index.js';
import type { Task, TaskEnvironment } from '../../core/types/index.js';
import { BuildError, buildContext } from './build.js';
import { hashContext } from './context-hash.js';
import { inspectImage, isHostView, pinsContent, repoDigestOf, type ImageFacts } from './image-facts.js';
import { CONTEXT_HASH_LABEL, envTag } from './labels.js';
import { pullImage } from './pull.js';

/** A task's environment as a local image, resolved once per run before any attempt. */
export interface ResolvedEnvironment {
  /** `host`: the task has no environment and runs in the host view (HOST_IMAGE) under docker. */
  source: 'image' | 'dockerfile' | 'host';
  /** The image reference, the Dockerfile relative to the task set's directory, or HOST_IMAGE. */
  reference: string;
  imageId: string;
  /** ISO time the engine created the image (a rebuild changes it). */
  created: string;
  repoDigest: string | null;
  immutable: boolean;
  contextHash?: string;
  /** `os/arch[/variant]` of the image. */
  platform: string;
  engineVersion: string;
  /** Containers of the image see the host's toolchain (HOST_IMAGE or built on it). */
  hostView: boolean;
  /** The image's WORKDIR (empty when none): a container-native task's `workdir: image`. */
  imageWorkdir: string;
  /** How it was obtained this time: found locally, pulled, built, or a build found in the cache. */
  how: 'local' | 'pulled' | 'built' | 'cached';
}

/** Why a task's environment could not be resolved: the `environment.<field>` to fix, and how. */
export interface EnvironmentFailure {
  field: 'image' | 'dockerfile' | 'platform';
  problem: string;
  fix: string;
}

export type EnvironmentResolution = { ok: true; environment: ResolvedEnvironment } | { ok: false; failure: EnvironmentFailure };

export interface ResolveOptions {
  client?: Docker;
  /** Pull and build output, one line at a time (the CLI shows it on stderr). */
  onProgress?: (line: string) => void;
}

/**
 * Resolves every task's environment to a local image: an image reference is looked up (and pulled
 * when its policy allows), a Dockerfile is built unless an image built from a context with the same
 * hash exists. Each distinct environment is resolved once, whatever number of tasks share it. A task
 * without one resolves to the host view. Failures are per task; the engine makes them task errors.
 */
export async function resolveEnvironments(tasks: readonly Task[], options: ResolveOptions = {}): Promise<Map<string, EnvironmentResolution>> {
  const client = options.client ?? dockerClient();
  const progress = options.onProgress ?? (() => undefined);
  const version = await client.version();
  const engineVersion = version.Version;
  // Every build may start FROM it and there is no registry to fetch it from: it is made here.
  const hostImageId = await ensureHostImage(client);
  const done = new Map<string, Promise<EnvironmentResolution>>();
  const results = new Map<string, EnvironmentResolution>();
  for (const task of tasks) {
    const env = task.environment;
    const key = env === undefined ? 'host' : JSON.stringify([env.image, env.dockerfile, env.context, env.buildArgs, env.platform, env.pull]);
    let pending = done.get(key);
    if (pending === undefined) {
      pending = resolveOne(client, task, env, { engineVersion, hostImageId, progress }).catch((error: unknown): EnvironmentResolution =>
        // An unreadable context file, an engine that failed mid-way: this task's problem, not the run's.
        fail(
          env?.image !== undefined ? 'image' : 'dockerfile',
          firstLine(error),
          'check the files of the build context and that dockerd is healthy (docker info)',
        ),
      );
      done.set(key, pending);
    }
    const resolved = await pending;
    // The reference names the Dockerfile as each task set writes it.
    results.set(task.id, resolved.ok && env?.dockerfile ? { ok: true, environment: { ...resolved.environment, reference: referenceOf(task, env) } } : resolved);
  }
  return results;
}

interface Shared {
  engineVersion: string;
  hostImageId: string;
  progress: (line: string) => void;
}

async function resolveOne(client: Docker, task: Task, env: TaskEnvironment | undefined, shared: Shared): Promise<EnvironmentResolution> {
  if (env === undefined) {
    const facts = await inspectImage(client, HOST_IMAGE);
    if (!facts) throw new Error(`${HOST_IMAGE} vanished right after it was made`);
    return ok(facts, { source: 'host', reference: HOST_IMAGE, how: 'local' }, shared);
  }
  if (env.image !== undefined) return resolveImage(client, env.image, env, shared);
  return resolveDockerfile(client, task, env, shared);
}

async function resolveImage(client: Docker, image: string, env: TaskEnvironment, shared: Shared): Promise<EnvironmentResolution> {
  let facts = await inspectImage(client, image);
  let how: ResolvedEnvironment['how'] = 'local';
  if (!facts) {
    if (env.pull === 'never') {
      return fail('image', `image ${image} is not on this machine and pull is never`, `docker pull ${image}, or set environment.pull: missing`);
    }
    shared.progress(`environment: pulling ${image}`);
    try {
      await pullImage(client, image, env.platform, shared.progress);
    } catch (error) {
      return fail(
        'image',
        `pulling ${image} failed: ${firstLine(error)}`,
        'check the reference and that its registry is reachable (docker pull shows the same error)',
      );
    }
    facts = await inspectImage(client, image);
    if (!facts) return fail('image', `image ${image} is missing after a pull that reported success`, `docker pull ${image}`);
    how = 'pulled';
  }
  if (env.platform !== undefined && !samePlatform(facts.platform, env.platform)) {
    return fail(
      'platform',
      `image ${image} is ${facts.platform}, not ${env.platform}`,
      `use an image built for ${env.platform}, or change environment.platform`,
    );
  }
  return ok(facts, { source: 'image', reference: image, how }, shared);
}

async function resolveDockerfile(client: Docker, task: Task, env: TaskEnvironment, shared: Shared): Promise<EnvironmentResolution> {
  const input = {
    context: env.context ?? dirname(env.dockerfile as string),
    dockerfile: env.dockerfile as string,
    buildArgs: env.buildArgs,
    ...(env.platform ? { platform: env.platform } : {}),
  };
  const hashed = await hashContext(input);
  const tag = envTag(hashed.hash);
  const reference = referenceOf(task, env);
  const existing = await inspectImage(client, tag);
  // A tag whose image was built from another context (a 12-digit collision, a hand-made tag) is rebuilt over.
  if (existing && existing.labels[CONTEXT_HASH_LABEL] === hashed.hash) {
    shared.progress(`environment: ${reference} unchanged, using ${tag} (${short(existing.id)})`);
    return ok(existing, { source: 'dockerfile', reference, contextHash: hashed.hash, how: 'cached' }, shared);
  }
  shared.progress(`environment: building ${reference} as ${tag}`);
  try {
    await buildContext(client, input, hashed, shared.progress);
  } catch (error) {
    const tail = error instanceof BuildError && error.tail.length > 0 ? ` (last lines: ${error.tail.join(' | ')})` : '';
    return fail(
      'dockerfile',
      `building ${reference} failed: ${firstLine(error)}${tail}`,
      `fix the Dockerfile; docker build -f ${env.dockerfile} ${input.context} shows the whole log`,
    );
  }
  const built = await inspectImage(client, tag);
  if (!built) return fail('dockerfile', `the build of ${reference} reported success but ${tag} is missing`, 'check that dockerd is healthy (docker info)');
  shared.progress(`environment: built ${tag} (${short(built.id)})`);
  return ok(built, { source: 'dockerfile', reference, contextHash: hashed.hash, how: 'built' }, shared);
}

function ok(
  facts: ImageFacts,
  what: Pick<ResolvedEnvironment, 'source' | 'reference' | 'how'> & { contextHash?: string },
  shared: Shared,
): EnvironmentResolution {
  return {
    ok: true,
    environment: {
      ...what,
      imageId: facts.id,
      created: facts.created,
      repoDigest: what.source === 'image' ? repoDigestOf(facts, what.reference) : null,
      immutable: what.source === 'image' && pinsContent(what.reference),
      platform: facts.platform,
      engineVersion: shared.engineVersion,
      hostView: isHostView(facts, shared.hostImageId),
      imageWorkdir: facts.workingDir,
    },
  };
}

function fail(field: EnvironmentFailure['field'], problem: string, fix: string): EnvironmentResolution {
  return { ok: false, failure: { field, problem, fix } };
}

/** The Dockerfile as the task set names it: relative to the task set's directory. */
function referenceOf(task: Task, env: TaskEnvironment): string {
  return relative(dirname(task.sourceFile), env.dockerfile as string) || (env.dockerfile as string);
}

/** `linux/amd64` matches `linux/amd64/v1`'s absence of a variant, not another architecture. */
function samePlatform(actual: string, wanted: string): boolean {
  const [os, arch, variant] = wanted.split('/');
  const [aos, aarch, avariant] = actual.split('/');
  return os === aos && arch === aarch && (variant === undefined || variant === avariant);
}

function short(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split('\n')[0] ?? '';
}
