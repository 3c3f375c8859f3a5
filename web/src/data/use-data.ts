import { useEffect, useState } from 'react';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: string } | { state: 'ready'; value: T };

/** Loads once per key; a newer key wins over a slower older answer. */
export function useData<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    setResult({ state: 'loading' });
    load().then(
      (value) => current && setResult({ state: 'ready', value }),
      (error: unknown) => current && setResult({ state: 'error', error: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      current = false;
    };
    // `key` names everything `load` depends on.
  }, [key]);
  return result;
}
