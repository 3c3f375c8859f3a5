import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertWebBundle, WEB_ENTRY_CSS, WEB_ENTRY_JS } from './web-assets.js';
import type { ReportData } from './view.js';

/** The element id the web app reads inlined report data from (web/src/data/static.ts). */
export const REPORT_DATA_ELEMENT_ID = 'crucible-report';

/*
 * No network, by construction: everything is inline and the page's CSP forbids fetching anything,
 * so a report opened from disk (or from a CI artifact) draws the same with the cable pulled.
 */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** JSON inside <script type="application/json">: nothing in it may close the element or open a comment. */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Module code inside <script>: `</script` and `<!--` would end or confuse the element; `<\/` is the same string to JS. */
export function inlineScript(code: string): string {
  return code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

const inlineStyle = (css: string): string => css.replace(/<\/(style)/gi, '<\\/$1');

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export async function renderHtml(data: ReportData, webDir: string): Promise<string> {
  assertWebBundle(webDir);
  const [js, css] = await Promise.all([readFile(join(webDir, WEB_ENTRY_JS), 'utf8'), readFile(join(webDir, WEB_ENTRY_CSS), 'utf8').catch(() => '')]);
  const title = `Crucible report ${data.view.run.runId}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="generator" content="crucible">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${inlineStyle(css)}</style>
</head>
<body>
<div id="root"></div>
<script type="application/json" id="${REPORT_DATA_ELEMENT_ID}">${inlineJson(data)}</script>
<script type="module">${inlineScript(js)}</script>
</body>
</html>
`;
}
