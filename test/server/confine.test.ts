import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRelativePath, PathRefused, startServer, type RunningServer } from '../../src/server/index.js';
import { RUN_ID, recordRun, sampleAttempts, writeRunDir } from '../report/fixtures.js';

/*
 * Every path the dashboard serves must stay inside the state directory. Requests go over real
 * HTTP with raw request targets, so no client-side URL normalisation hides an attack.
 */

const SECRET = 'TOPSECRET-outside-the-state-dir';

function rawGet(server: RunningServer, target: string, host = `127.0.0.1:${server.port}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path: target, method: 'GET', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('path confinement of the dashboard server', () => {
  let server: RunningServer;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'crucible-confine-'));
    const state = join(root, 'state');
    const outside = join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'secret.txt'), SECRET);
    const attempts = sampleAttempts();
    const runDir = writeRunDir(state, attempts);
    recordRun(state, attempts);
    // Symlinks planted in the run directory, as an agent with a kept workspace might leave them.
    symlinkSync(join(outside, 'secret.txt'), join(runDir, 'leak.txt'));
    symlinkSync(outside, join(runDir, 'attempts', 'escape'));
    symlinkSync(outside, join(state, 'runs', 'linked-run'));
    symlinkSync(join(runDir, 'summary.json'), join(runDir, 'inside-link.json'));
    const web = join(root, 'web');
    mkdirSync(join(web, 'assets'), { recursive: true });
    writeFileSync(join(web, 'index.html'), '<!doctype html>');
    writeFileSync(join(web, 'assets', 'app.js'), '');
    server = await startServer({ stateDir: state, port: 0, host: '127.0.0.1', webDir: web });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const files = `/api/runs/${RUN_ID}/files/`;
  const attacks: Array<[string, number[]]> = [
    [`${files}../../../../../../etc/passwd`, [404]],
    [`${files}..%2f..%2f..%2f..%2fetc%2fpasswd`, [403]],
    [`${files}%2e%2e/%2e%2e/%2e%2e/outside/secret.txt`, [404, 403]],
    [`${files}%2e%2e%2f%2e%2e%2f%2e%2e%2foutside%2fsecret.txt`, [403]],
    [`${files}%252e%252e%252f%252e%252e%252foutside%252fsecret.txt`, [403]],
    [`${files}..%5c..%5c..%5coutside%5csecret.txt`, [403]],
    [`${files}%2fetc%2fpasswd`, [403]],
    [`${files}summary.json%00.txt`, [403]],
    [`${files}%c0%ae%c0%ae/%c0%ae%c0%ae/outside/secret.txt`, [400]],
    [`${files}leak.txt`, [403]],
    [`${files}attempts/escape/secret.txt`, [403]],
    ['/api/runs/linked-run/files/secret.txt', [403]],
    ['/api/runs/..%2f..%2foutside/files/secret.txt', [400]],
    ['/api/runs/%2e%2e/files/outside/secret.txt', [404, 400]],
    ['/assets/..%2f..%2foutside%2fsecret.txt', [403]],
    ['/assets/%2e%2e/%2e%2e/outside/secret.txt', [404, 403]],
    ['//etc/passwd', [404]],
  ];

  it.each(attacks)('refuses %s', async (target, statuses) => {
    const res = await rawGet(server, target);
    expect(statuses).toContain(res.status);
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('root:x:');
  });

  it('still serves files inside the state directory, symlinks that stay inside included', async () => {
    expect((await rawGet(server, `${files}summary.json`)).status).toBe(200);
    const linked = await rawGet(server, `${files}inside-link.json`);
    expect(linked.status).toBe(200);
    expect(linked.body).toContain(RUN_ID);
    expect((await rawGet(server, `${files}attempts%2F${sampleAttempts()[0]?.attemptId}%2Fdiff.patch`)).status).toBe(200);
  });

  it('binds to loopback and refuses other Host headers (DNS rebinding)', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await rawGet(server, '/api/runs', 'rebind.attacker.example')).status).toBe(421);
    expect((await rawGet(server, '/api/runs', `localhost:${server.port}`)).status).toBe(200);
  });

  it('checks relative paths before touching the disk', () => {
    for (const bad of ['', '/abs', 'a/../b', './a', 'a//b', 'a\\b', 'a\0b', '%2e%2e/x']) expect(() => checkRelativePath(bad), bad).toThrow(PathRefused);
    expect(checkRelativePath('attempts/x/diff.patch')).toEqual(['attempts', 'x', 'diff.patch']);
  });
});
