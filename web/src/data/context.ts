import { createContext, useContext } from 'react';
import type { DataSource } from './source.js';

export const SourceContext = createContext<DataSource | null>(null);

export function useSource(): DataSource {
  const source = useContext(SourceContext);
  if (!source) throw new Error('no data source');
  return source;
}
