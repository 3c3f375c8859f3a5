// Builds the one web app: `crucible view` serves dist/web, and the HTML report inlines
// dist/web/assets/app.{js,css}. One chunk and fixed names make that inlining possible.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    modulePreload: false,
    cssCodeSplit: false,
    sourcemap: false,
    target: 'es2022',
    assetsInlineLimit: 100_000_000,
    rolldownOptions: {
      output: {
        codeSplitting: false,
        entryFileNames: 'assets/app.js',
        assetFileNames: (asset) => (asset.names?.some((n) => n.endsWith('.css')) ? 'assets/app.css' : 'assets/[name][extname]'),
      },
    },
  },
});
