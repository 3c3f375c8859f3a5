import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../domain/run-dir/index.js';
import { renderHtml } from './html.js';
import { renderJUnit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { REPORT_FILES, type Reporter, type ReporterName } from './reporter.js';
import { renderSarif } from './sarif.js';

/** GitHub refuses step summaries over 1 MiB; stay well under it. */
export const GITHUB_SUMMARY_MAX_BYTES = 900 * 1024;

async function writeAtomic(file: string, content: string): Promise<string> {
  await writeFileAtomic(file, content);
  return file;
}

const json: Reporter = {
  name: 'json',
  async write(ctx) {
    return [await writeAtomic(join(ctx.runDir, REPORT_FILES.json), `${JSON.stringify(await ctx.data(), null, 2)}\n`)];
  },
};

const markdown: Reporter = {
  name: 'markdown',
  async write(ctx) {
    const text = renderMarkdown(ctx.view, ctx.attempts, { passingDetails: true, links: true });
    return [await writeAtomic(join(ctx.runDir, REPORT_FILES.markdown), text)];
  },
};

const html: Reporter = {
  name: 'html',
  async write(ctx) {
    return [await writeAtomic(join(ctx.runDir, REPORT_FILES.html), await renderHtml(await ctx.data(), ctx.webDir))];
  },
};

const sarif: Reporter = {
  name: 'sarif',
  async write(ctx) {
    const log = renderSarif(ctx.summary.runId, ctx.attempts, { version: ctx.toolVersion });
    return [await writeAtomic(join(ctx.runDir, REPORT_FILES.sarif), `${JSON.stringify(log, null, 2)}\n`)];
  },
};

const junit: Reporter = {
  name: 'junit',
  async write(ctx) {
    return [await writeAtomic(join(ctx.runDir, REPORT_FILES.junit), renderJUnit(ctx.summary.runId, ctx.attempts))];
  },
};

/** Appends to $GITHUB_STEP_SUMMARY, as Actions expects; does nothing outside Actions. */
const github: Reporter = {
  name: 'github',
  async write(ctx) {
    const target = ctx.env.GITHUB_STEP_SUMMARY;
    if (!target) return [];
    let text = renderMarkdown(ctx.view, ctx.attempts, { passingDetails: false, maxAttemptSections: 50 });
    if (Buffer.byteLength(text) > GITHUB_SUMMARY_MAX_BYTES) {
      text = renderMarkdown(ctx.view, ctx.attempts, { passingDetails: false, maxAttemptSections: 0 });
    }
    if (Buffer.byteLength(text) > GITHUB_SUMMARY_MAX_BYTES) {
      text = `${Buffer.from(text).subarray(0, GITHUB_SUMMARY_MAX_BYTES).toString('utf8')}\n\n…cut to fit GitHub's step summary limit; see report.md.\n`;
    }
    await appendFile(target, `${text}\n`);
    return [target];
  },
};

export const REPORTERS: Readonly<Record<ReporterName, Reporter>> = { json, markdown, html, sarif, junit, github };
