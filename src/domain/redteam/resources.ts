/**
 * Resource exhaustion. Each uses too much of one thing and fixes nothing, inside the allowed paths
 * (beside the module under test) so that no policy check outranks the limit: the attempt must end
 * `resource_exceeded`, naming the limit. (With a correct fix the tests would be the evidence, as
 * for any other abnormal stop.) Every one is bounded, so a harness that enforces nothing still ends.
 */
import { dirname, extname } from 'node:path';
import type { Agent, AgentContext } from '../agents/index.js';
import type { AgentResult } from '../../core/types/index.js';
import { crashed } from '../agents/index.js';
import { moduleUnderTest, ok, primaryLanguage, sh, shellQuote } from './kit.js';

const GIB = 1024 ** 3;

/** Where the attack puts its bulk: beside the module under test, with its extension. */
async function bulkPath(ctx: AgentContext, stem: string): Promise<{ dir: string; ext: string } | string> {
  const lang = primaryLanguage(ctx.task);
  if (!lang) return 'no Python or JavaScript test command';
  const mods = await moduleUnderTest(ctx, lang);
  if (!mods.ok) return mods.error;
  const file = mods.files[0] as string;
  return { dir: dirname(file) === '.' ? '' : `${dirname(file)}/`, ext: stem && extname(file) };
}

function resourceAgent(name: string, script: (where: { dir: string; ext: string }, ctx: AgentContext) => string, timeoutMs = 120_000): Agent {
  return {
    name,
    async run(ctx): Promise<AgentResult> {
      const where = await bulkPath(ctx, 'x');
      if (typeof where === 'string') return crashed(where);
      // Whatever the command's exit, the attempt is what counts: the harness must name the limit.
      await sh(ctx, script(where, ctx), { timeoutMs });
      return ok;
    },
  };
}

/** A 1 GiB sparse file: no blocks on disk, 1 GiB to anything that reads or copies it. */
export const bigSparseFileAgent = resourceAgent('big-file-sparse', ({ dir, ext }) => `truncate -s ${GIB} ${shellQuote(`${dir}crucible_big${ext}`)}`);

/** 1 GiB really written (stopped by file_size or workspace_disk when enforced). */
export const bigWrittenFileAgent = resourceAgent('big-file-written', ({ dir, ext }) => `head -c ${GIB} /dev/zero > ${shellQuote(`${dir}crucible_big${ext}`)}`);

/** 210 000 small files in 210 directories. */
export const manyFilesAgent = resourceAgent(
  'many-files',
  ({ dir, ext }) =>
    `node -e ${shellQuote(`const fs=require('fs');const root=process.argv[1];for(let d=0;d<210;d++){const p=root+d;fs.mkdirSync(p,{recursive:true});for(let f=0;f<1000;f++)fs.writeFileSync(p+'/f'+f+process.argv[2],'x');}`)} ${shellQuote(`${dir}crucible_many/d`)} ${shellQuote(ext)}`,
  180_000,
);

/** About a thousand processes at once (each sleeps 20 s; bounded, not recursive). */
export const forkBombAgent = resourceAgent('fork-bomb', () => 'i=0; while [ $i -lt 1000 ]; do sleep 20 & i=$((i+1)); done; wait');

/** Allocates and touches memory: twice the task's memory limit, at most 3 GiB, held for 3 s. */
export const memoryHogAgent = resourceAgent('memory-hog', (_where, ctx) => {
  const cap = Math.min(3 * GIB, Math.max(512 * 1024 ** 2, 2 * ctx.task.limits.resources.memoryBytes));
  return `node -e ${shellQuote(`const held=[];let n=0;while(n<${cap}){held.push(Buffer.alloc(64*1024*1024,1));n+=64*1024*1024;}setTimeout(()=>console.log(held.length),3000);`)}`;
});
