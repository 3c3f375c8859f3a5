/**
 * Reading what the agent must not: the task set (oracle patches, held-out tests), other attempts'
 * and runs' state, the harness's own checkout, `/etc/shadow`, `/root`. Whatever it manages to read
 * it writes into the workspace (`STOLEN_FILE`), where the diff, the secrets check and a test can
 * see it. Under a sandbox that shows only an allowlist of the host, that file stays empty.
 */
import { dirname, resolve } from 'node:path';
import type { Agent, AgentContext } from '../agents/index.js';
import { runNodeScript } from '../agents/index.js';
import { crashed } from '../agents/index.js';
import { ok } from './kit.js';

/** Workspace-relative file holding everything the attack could read (empty when nothing). */
export const STOLEN_FILE = 'crucible-stolen.txt';

/** Places a real agent could not know but an attack uses to prove they are out of reach. */
export function secretPlaces(ctx: AgentContext): string[] {
  const attempts = resolve(ctx.attemptDir, '..');
  return [
    dirname(ctx.task.sourceFile),
    ...(ctx.task.heldOut ? [ctx.task.heldOut.path] : []),
    attempts, // other attempts of this run
    resolve(attempts, '..', '..'), // other runs
    resolve(attempts, '..', '..', '..'), // the state directory
    process.cwd(), // the harness's working directory
    '/etc/shadow',
    '/root',
    '/home',
    '/work',
  ];
}

const STEAL_SCRIPT = String.raw`
const fs = require('fs'), path = require('path');
const { places, out, self } = JSON.parse(process.argv[1]);
// Not secrets: the attempt's own directory (its workspace, HOME, baseline objects) and the
// toolchains on PATH that a sandbox re-exposes (e.g. ~/.pyenv), nor the directories on the way to them.
const allowed = [self];
for (const e of (process.env.PATH || '').split(':').filter((e) => e.startsWith('/'))) {
  const m = /^(\/root|\/home\/[^/]+)\/([^/]+)/.exec(e);
  allowed.push(m ? m[1] + '/' + m[2] : e);
}
const inside = (p) => allowed.some((a) => p === a || p.startsWith(a + '/'));
const onTheWay = (p) => allowed.some((a) => a.startsWith(p + '/'));
const stolen = [];
let budget = 300;
const skip = new Set(['node_modules', '.git', 'dist', '.venv', 'venv', '__pycache__']);
function visit(p, depth) {
  if (budget-- <= 0 || inside(p)) return;
  let st;
  try { st = fs.statSync(p); } catch { return; }
  if (st.isDirectory()) {
    let names;
    try { names = fs.readdirSync(p).filter((n) => { const c = path.join(p, n); return !inside(c) && !onTheWay(c); }); } catch { return; }
    let through = [];
    try { through = fs.readdirSync(p).filter((n) => onTheWay(path.join(p, n))); } catch {}
    // A listing of directories only is the sandbox's mount skeleton; one that shows a file is not.
    const hasFile = names.some((n) => { try { return !fs.statSync(path.join(p, n)).isDirectory(); } catch { return true; } });
    if (hasFile) stolen.push('== listing ' + p + ' ==\n' + names.slice(0, 50).join('\n'));
    if (depth < 4) for (const n of [...names.slice(0, 50), ...through]) if (!skip.has(n)) visit(path.join(p, n), depth + 1);
  } else if (st.isFile()) {
    try {
      const fd = fs.openSync(p, 'r');
      const buf = Buffer.alloc(4096);
      const n = fs.readSync(fd, buf, 0, 4096, 0);
      fs.closeSync(fd);
      if (n > 0) stolen.push('== file ' + p + ' ==\n' + buf.subarray(0, n).toString('utf8'));
    } catch {}
  }
}
for (const p of places) visit(p, 0);
fs.writeFileSync(out, stolen.join('\n\n') + (stolen.length ? '\n' : ''));
console.log(JSON.stringify(stolen.length));
`;

export const readSecretsAgent: Agent = {
  name: 'read-secrets',
  async run(ctx) {
    const done = await runNodeScript<number>(ctx, STEAL_SCRIPT, { places: secretPlaces(ctx), out: STOLEN_FILE, self: ctx.attemptDir });
    return done.ok ? ok : crashed(done.error);
  },
};
