import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layersRule from './eslint-rules/layers.js';

/**
 * The layers of src/, lowest first (docs/architecture.md, "Layers", draws this table). A layer
 * with a `dir` keeps its folders in src/<dir>/. A folder imports folders of its own layer or
 * below, never in a circle, and only through their index.ts.
 */
export const layers = {
  root: 'src',
  layers: [
    { name: 'core', dir: 'core', folders: ['types', 'errors', 'version', 'format', 'redact', 'input'] },
    { name: 'infrastructure', dir: 'infra', folders: ['docker', 'sandbox', 'gateway', 'store', 'workspace'] },
    {
      name: 'domain',
      dir: 'domain',
      folders: [
        'tasks',
        'agents',
        'evidence',
        'checks',
        'grading',
        'guard',
        'trace',
        'manifest',
        'stats',
        'failures',
        'config',
        'environment',
        'redteam',
        'run-dir',
        'evaluation',
      ],
    },
    { name: 'engine', folders: ['engine'] },
    {
      name: 'features',
      dir: 'features',
      folders: ['suite', 'report', 'ci', 'gate', 'baseline', 'audit', 'authoring', 'importers', 'pack', 'diagnostics', 'distributed', 'grade', 'strength'],
    },
    { name: 'front ends', folders: ['cli', 'server', 'index'] },
  ],
  // Temporary exceptions, one line each naming the change that removes it; none are left.
  exceptions: [],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.crucible/**', 'examples/**', 'web/dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // Benchmarks are Node scripts: its web-standard globals too.
    files: ['bench/**/*.mjs'],
    languageOptions: { globals: { Buffer: 'readonly', fetch: 'readonly', performance: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  {
    // The dashboard / HTML report app (React + Vite): browser code, TSX.
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: {
      parserOptions: { ecmaFeatures: { jsx: true } },
      globals: { window: 'readonly', document: 'readonly', fetch: 'readonly', URLSearchParams: 'readonly', HTMLElement: 'readonly', Document: 'readonly' },
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { crucible: { rules: { layers: layersRule } } },
    rules: { 'crucible/layers': ['error', layers] },
  },
);
