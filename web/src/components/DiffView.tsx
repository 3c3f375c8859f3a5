import { useMemo, type ReactNode } from 'react';
import type { BoundedText } from '../data/types.js';
import { parseDiff } from './diff-parse.js';
import { highlightLine, langOf } from './highlight.js';

const MAX_LINES = 5000;

export function DiffView({ diff, fileLink }: { diff: BoundedText | null; fileLink: string | null }): ReactNode {
  const files = useMemo(() => (diff ? parseDiff(diff.text) : []), [diff]);
  if (diff === null) return <p className="empty">No diff was recorded for this attempt.</p>;
  if (files.length === 0) return <p className="empty">The agent changed nothing.</p>;
  let budget = MAX_LINES;
  return (
    <div className="diff" data-testid="diff">
      <ul className="diff-files">
        {files.map((f) => (
          <li key={f.newPath}>
            {/* A button, not an anchor: the hash is the router's. */}
            <button type="button" className="linkish" onClick={() => document.getElementById(`file-${f.newPath}`)?.scrollIntoView()}>
              {f.newPath}
            </button>{' '}
            <span className="add-count">+{f.added}</span> <span className="del-count">−{f.deleted}</span>
          </li>
        ))}
      </ul>
      {diff.truncated ? (
        <p className="warn">
          Showing the first {Math.round(diff.text.length / 1024)} KiB of {Math.round(diff.bytes / 1024)} KiB.{' '}
          {fileLink ? <a href={fileLink}>Full diff.patch</a> : 'The full diff.patch is in the attempt directory.'}
        </p>
      ) : null}
      {files.map((f) => {
        const lang = langOf(f.newPath);
        return (
          <details open key={f.newPath} className="diff-file" id={`file-${f.newPath}`}>
            <summary>
              <span className="path">{f.oldPath !== f.newPath && f.oldPath ? `${f.oldPath} → ${f.newPath}` : f.newPath}</span>
              <span className="add-count">+{f.added}</span> <span className="del-count">−{f.deleted}</span>
            </summary>
            {f.binary ? <p className="muted">Binary file.</p> : null}
            <table className="diff-table">
              <tbody>
                {f.hunks.map((h, hi) => {
                  if (budget <= 0) return null;
                  const lines = h.lines.slice(0, budget);
                  budget -= lines.length;
                  return [
                    <tr key={`h${hi}`} className="hunk">
                      <td colSpan={3}>{h.header}</td>
                    </tr>,
                    ...lines.map((l, li) => (
                      <tr key={`${hi}-${li}`} className={`line-${l.kind}`}>
                        <td className="ln">{l.oldNo ?? ''}</td>
                        <td className="ln">{l.newNo ?? ''}</td>
                        <td className="code">
                          <span className="mark">{l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ' '}</span>
                          {l.kind === 'note' ? l.text : highlightLine(l.text, lang, l.change)}
                        </td>
                      </tr>
                    )),
                  ];
                })}
              </tbody>
            </table>
          </details>
        );
      })}
      {budget <= 0 ? <p className="warn">Diff cut at {MAX_LINES} lines.</p> : null}
    </div>
  );
}
