// For the tests that read the layer table (test/lint/layers-doc.test.ts); ESLint reads the .js.
import type { Linter } from 'eslint';
import type { LayersOptions } from './eslint-rules/layers.js';

export declare const layers: LayersOptions;
declare const config: Linter.Config[];
export default config;
