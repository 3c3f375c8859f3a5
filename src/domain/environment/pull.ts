import type Docker from 'dockerode';

/** Pulls `ref` (one platform when given), reporting each layer's status changes; throws the engine's error. */
export async function pullImage(client: Docker, ref: string, platform: string | undefined, onProgress: (line: string) => void): Promise<void> {
  const stream = await client.pull(ref, platform ? { platform } : {});
  const last = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    client.modem.followProgress(
      stream,
      (error: Error | null, events: Array<{ error?: string }>) => {
        const failed = error ?? events.find((e) => e.error !== undefined)?.error;
        if (failed) reject(failed instanceof Error ? failed : new Error(failed));
        else resolve();
      },
      (event: { id?: string; status?: string; error?: string }) => {
        if (event.error) return;
        // Byte counts change many times a second; a status change is what a person follows.
        const key = event.id ?? '';
        if (!event.status || last.get(key) === event.status) return;
        last.set(key, event.status);
        onProgress(`pull ${ref}: ${event.id ? `${event.id} ` : ''}${event.status}`);
      },
    );
  });
}
