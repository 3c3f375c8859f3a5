/**
 * Runs `work` over `items` in order with at most `concurrency` in flight. Workers pull the next
 * item when they finish one, so memory holds `concurrency` pending promises, not one per item.
 * `stopped` is checked before each start: once true, nothing new starts and running items finish.
 * `work` must not throw (the engine turns every failure into a result); if it does, the error
 * surfaces after every other worker has stopped, so no attempt is left running unobserved.
 */
export async function schedule<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<{ started: number }> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stopped() && failure === undefined) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return { started: next };
}
