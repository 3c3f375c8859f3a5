import { readFile } from 'node:fs/promises';
import { Hono, type Context } from 'hono';
import { peekPlanFile, RUN_FILES, runFolderOf, type PlannedTask } from '../domain/run-dir/index.js';
import {
  compareRuns,
  listItemOf,
  loadAttemptArtifacts,
  runListItemOf,
  trendView,
  type AttemptView,
  type CellView,
  type CompareView,
  type Page,
  type RunListItem,
} from '../features/report/index.js';
import { DIAGNOSTIC_KINDS, listDiagnostics } from '../features/diagnostics/index.js';
import { HistoryError, type AttemptFilter, type EvaluationListItem, type HistoryReader } from '../infra/store/index.js';
import { CAUSES, VERDICTS } from '../core/types/index.js';
import { PathRefused, resolveInside, SAFE_ID } from './confine.js';
import { APP_CSP, contentType, FILE_CSP, JSON_TYPE, JsonBodies } from './responses.js';
import { RunViews } from './run-views.js';
import { COMPARISONS_KEPT, shownComparison } from './compare-view.js';

export interface AppOptions {
  /** The `.crucible` directory: every file served comes from inside it (or from webDir). */
  stateDir: string;
  history: HistoryReader;
  /** The built web app (dist/web). */
  webDir: string;
  /**
   * Host header values accepted (lower case, port ignored). Guards a loopback server against DNS
   * rebinding; undefined accepts any host (the user bound to a public address on purpose).
   */
  allowedHosts?: readonly string[];
}

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

class BadRequest extends Error {}

function intParam(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new BadRequest(`${name} must be a whole number from 1 to ${max}`);
  return n;
}

function optional(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  const v = optional(value);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw new BadRequest(`${name} must be one of ${allowed.join(', ')}`);
  return v as T;
}

function safeId(value: string, name: string): string {
  if (!SAFE_ID.test(value)) throw new BadRequest(`${name} is not a valid id`);
  return value;
}

function hostOf(header: string | undefined): string {
  if (!header) return '';
  const h = header.toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.replace(/:\d+$/, '');
}

/** The dashboard's HTTP app: a read-only JSON API over the history and run files, and the web app. */
export function createApp(opts: AppOptions): Hono {
  const { history, stateDir, webDir } = opts;
  const views = new RunViews(history, stateDir);
  // A validate run's files are under `validate/`, every other run's under `runs/`.
  const runFolder = (runId: string): string => `${runFolderOf(history.runVersion(runId)?.kind)}/${runId}`;
  const comparisons = new Map<string, CompareView>();
  const bodies = new JsonBodies();
  const app = new Hono();

  guardRequests(app, opts.allowedHosts);

  app.get('/api/health', (c) => c.json({ ok: true }));

  app.get('/api/runs', (c) => {
    const page = history.listRuns({
      limit: intParam(c.req.query('limit'), 'limit', DEFAULT_PAGE, MAX_PAGE),
      agent: optional(c.req.query('agent')),
      since: optional(c.req.query('since')),
      cursor: optional(c.req.query('cursor')),
    });
    const body: Page<RunListItem> = { items: page.items.map(runListItemOf), nextCursor: page.nextCursor };
    return c.json(body);
  });

  /** ci and gate results, newest first; detail is left out of the list (it is in the report dir). */
  app.get('/api/evaluations', (c) => {
    const rows = history.listEvaluations({
      kind: oneOf(c.req.query('kind'), ['ci', 'gate'] as const, 'kind'),
      limit: intParam(c.req.query('limit'), 'limit', DEFAULT_PAGE, MAX_PAGE),
    });
    const items: EvaluationListItem[] = rows.map(({ detail: _detail, ...row }) => row);
    return c.json({ items });
  });

  /** Reports of `crucible diagnostics …` under <state>/diagnostics/, newest first. */
  app.get('/api/diagnostics', async (c) => c.json({ items: await listDiagnostics(stateDir, intParam(c.req.query('limit'), 'limit', DEFAULT_PAGE, MAX_PAGE)) }));

  app.get('/api/diagnostics/:kind/:id/:file', async (c) => {
    const kind = oneOf(c.req.param('kind'), DIAGNOSTIC_KINDS, 'kind');
    const file = oneOf(c.req.param('file'), ['report.json', 'report.md'] as const, 'file');
    const path = await resolveInside(stateDir, `diagnostics/${kind ?? ''}/${safeId(c.req.param('id'), 'id')}/${file ?? ''}`);
    if (path === null) return c.json({ error: 'no such report' }, 404);
    c.header('Content-Type', contentType(path));
    c.header('Content-Security-Policy', FILE_CSP);
    return c.body(await readFile(path));
  });

  app.get('/api/runs/:runId', (c) => {
    const view = views.get(safeId(c.req.param('runId'), 'runId'));
    return view ? c.body(bodies.of(view), 200, { 'Content-Type': JSON_TYPE }) : c.json({ error: 'no such run' }, 404);
  });

  /** A run's heatmap a page of tasks at a time (every agent of each task), from the history's tallies. */
  app.get('/api/runs/:runId/cells', (c) => {
    const runId = safeId(c.req.param('runId'), 'runId');
    if (!history.runVersion(runId)) return c.json({ error: 'no such run' }, 404);
    const page = history.cellPage(runId, { limit: intParam(c.req.query('limit'), 'limit', DEFAULT_PAGE, MAX_PAGE), cursor: optional(c.req.query('cursor')) });
    const body: Page<CellView> = {
      items: page.items.map((x) => ({ agent: x.agent, taskId: x.taskId, n: x.n, passes: x.passes, harnessErrors: x.errors })),
      nextCursor: page.nextCursor,
    };
    return c.json(body);
  });

  /** One agent's failure pattern: its attempt ids a page at a time (the run page carries the first ones). */
  app.get('/api/runs/:runId/failure-patterns/:agent/:pattern', (c) => {
    const runId = safeId(c.req.param('runId'), 'runId');
    const limit = intParam(c.req.query('limit'), 'limit', DEFAULT_PAGE, MAX_PAGE);
    const cursor = optional(c.req.query('cursor'));
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(offset) || offset < 0) throw new BadRequest('cursor must be one this route gave');
    const found = views.patternIds(runId, c.req.param('agent'), c.req.param('pattern'), offset, limit);
    if (!found) return c.json({ error: 'no such run, agent or failure pattern' }, 404);
    const body: Page<string> = { items: found.ids, nextCursor: offset + limit < found.count ? String(offset + limit) : null };
    return c.json(body);
  });

  app.get('/api/runs/:runId/attempts', (c) => {
    const runId = safeId(c.req.param('runId'), 'runId');
    const filter: AttemptFilter = {
      runId,
      agent: optional(c.req.query('agent')),
      taskId: optional(c.req.query('taskId')),
      verdict: oneOf(c.req.query('verdict'), VERDICTS, 'verdict'),
      cause: oneOf(c.req.query('cause'), CAUSES, 'cause'),
    };
    const page = history.listAttempts({
      ...filter,
      limit: intParam(c.req.query('limit'), 'limit', DEFAULT_PAGE, MAX_PAGE),
      cursor: optional(c.req.query('cursor')),
    });
    return c.json({
      items: page.items.map(listItemOf),
      nextCursor: page.nextCursor,
    });
  });

  app.get('/api/runs/:runId/files/*', async (c) => {
    const runId = safeId(c.req.param('runId'), 'runId');
    const raw = new URL(c.req.url).pathname;
    const prefix = `/api/runs/${encodeURIComponent(runId)}/files/`;
    const rest = raw.startsWith(prefix) ? raw.slice(prefix.length) : null;
    if (rest === null) throw new BadRequest('malformed file path');
    let decoded: string;
    try {
      decoded = decodeURIComponent(rest);
    } catch {
      throw new BadRequest('malformed percent-encoding');
    }
    const file = await resolveInside(stateDir, `${runFolder(runId)}/${decoded}`);
    if (file === null) return c.json({ error: 'no such file' }, 404);
    c.header('Content-Type', contentType(file));
    c.header('Content-Security-Policy', FILE_CSP);
    return c.body(await readFile(file));
  });

  app.get('/api/attempts/:attemptId', async (c) => {
    const attemptId = safeId(c.req.param('attemptId'), 'attemptId');
    const detail = history.getAttempt(attemptId);
    if (!detail) return c.json({ error: 'no such attempt' }, 404);
    const attempt = { ...detail.attempt, checks: detail.checks };
    const dir = await resolveInside(stateDir, `${runFolder(safeId(detail.runId, 'runId'))}/${RUN_FILES.attempts}/${attemptId}`, 'dir').catch(() => null);
    const artifacts = dir
      ? await loadAttemptArtifacts(dir)
      : { diff: null, trajectory: null, commands: null, tests: null, heldOutTests: null, omitted: 'not found: the attempt directory is gone' };
    const view: AttemptView = { item: listItemOf(attempt), attempt, artifacts };
    return c.json(view);
  });

  /** The run's planned tasks with their hashes, so a comparison can say which tasks changed between runs. */
  const plannedTasks = async (runId: string): Promise<readonly PlannedTask[] | undefined> => {
    const dir = await resolveInside(stateDir, runFolder(runId), 'dir').catch(() => null);
    const tasks = dir ? peekPlanFile(dir)?.tasks : undefined;
    return Array.isArray(tasks) ? tasks : undefined;
  };

  app.get('/api/compare', async (c) => {
    const a = safeId(c.req.query('a') ?? '', 'a');
    const b = safeId(c.req.query('b') ?? '', 'b');
    const versionA = views.version(a);
    const versionB = views.version(b);
    if (versionA === undefined || versionB === undefined) return c.json({ error: `no such run: ${versionA === undefined ? a : b}` }, 404);
    // The same computation as `crucible compare`, over every cell of both runs: remember it per
    // pair of run versions, so a run is compared again only once it changes.
    const key = JSON.stringify([a, versionA, b, versionB]);
    let view = comparisons.get(key);
    if (!view) {
      const va = views.stats(a);
      const vb = views.stats(b);
      if (!va || !vb) return c.json({ error: `no such run: ${!va ? a : b}` }, 404);
      const [ta, tb] = await Promise.all([plannedTasks(a), plannedTasks(b)]);
      view = shownComparison(compareRuns(va, vb, { a: ta, b: tb }));
      comparisons.set(key, view);
      if (comparisons.size > COMPARISONS_KEPT) comparisons.delete(comparisons.keys().next().value as string);
    }
    return c.body(bodies.of(view), 200, { 'Content-Type': JSON_TYPE });
  });

  app.get('/api/trends', (c) => {
    const bucket = oneOf(c.req.query('bucket'), ['day', 'run'] as const, 'bucket') ?? 'day';
    const points = history.trends({
      bucket,
      limit: intParam(c.req.query('limit'), 'limit', 30, 365),
      agent: optional(c.req.query('agent')),
      taskId: optional(c.req.query('taskId')),
      since: optional(c.req.query('since')),
      perTask: c.req.query('perTask') === 'true' || c.req.query('perTask') === '1',
    });
    return c.json(trendView(bucket, points));
  });

  app.get('/api/*', (c) => c.json({ error: 'no such API route' }, 404));

  serveWebApp(app, webDir);
  app.notFound((c) => c.json({ error: 'not found' }, 404));
  return app;
}

/** Read-only, same-host requests only, with the headers every answer carries; errors mapped to statuses. */
function guardRequests(app: Hono, allowedHosts: readonly string[] | undefined): void {
  app.use('*', async (c, next) => {
    if (allowedHosts && !allowedHosts.includes(hostOf(c.req.header('host') ?? new URL(c.req.url).host))) {
      return c.json({ error: 'unexpected Host header' }, 421);
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      c.header('Allow', 'GET, HEAD');
      return c.json({ error: 'the dashboard API is read-only' }, 405);
    }
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
    if (!c.res.headers.has('Content-Security-Policy')) c.header('Content-Security-Policy', APP_CSP);
  });

  app.onError((error, c) => {
    if (error instanceof BadRequest || error instanceof HistoryError) return c.json({ error: error.message }, 400);
    if (error instanceof PathRefused) return c.json({ error: error.message }, 403);
    process.stderr.write(`crucible view: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return c.json({ error: 'internal error; see the server log' }, 500);
  });
}

/** The built web app: its index page and its assets, from inside `webDir` only. */
function serveWebApp(app: Hono, webDir: string): void {
  const serveWeb = async (c: Context, path: string): Promise<Response> => {
    const file = await resolveInside(webDir, path);
    if (file === null) return c.json({ error: 'not found' }, 404);
    c.header('Content-Type', contentType(file));
    c.header('Cache-Control', path === 'index.html' ? 'no-cache' : 'max-age=300');
    return c.body(await readFile(file));
  };
  app.get('/', (c) => serveWeb(c, 'index.html'));
  app.get('/index.html', (c) => serveWeb(c, 'index.html'));
  app.get('/assets/*', (c) => {
    let rest: string;
    try {
      rest = decodeURIComponent(new URL(c.req.url).pathname.slice('/assets/'.length));
    } catch {
      throw new BadRequest('malformed percent-encoding');
    }
    return serveWeb(c, `assets/${rest}`);
  });
}
