// The dashboard server: a read-only Hono app over the history and the run directories.
export { createApp, type AppOptions, DEFAULT_PAGE, MAX_PAGE } from './app.js';
export { startServer, isLoopback, type ServeOptions, type RunningServer } from './serve.js';
export { resolveInside, checkRelativePath, PathRefused, SAFE_ID } from './confine.js';
