import { useMemo } from 'react';
import { diffStats, lineDiff } from './line-diff.js';

const SIGN = { added: '+', removed: '−', same: ' ' } as const;

/** The line diff of two versions' sources, numbered on each side, signs besides colours. */
export function VersionDiff({ before, after, fromVersion, toVersion }: { before: string; after: string; fromVersion: number; toVersion: number }) {
  const rows = useMemo(() => lineDiff(before, after), [before, after]);
  const stats = diffStats(rows);
  return (
    <figure className="version-diff">
      <figcaption>
        Version {fromVersion} → version {toVersion}:{' '}
        {stats.added + stats.removed === 0 ? 'the sources are the same' : `${stats.added} line(s) added, ${stats.removed} removed`}
      </figcaption>
      <div className="table-wrap">
        <table className="diff-table">
          <thead>
            <tr>
              <th scope="col">v{fromVersion}</th>
              <th scope="col">v{toVersion}</th>
              <th scope="col">
                <span className="visually-hidden">Change</span>
              </th>
              <th scope="col">Line</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) =>
              row.kind === 'skipped' ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows of one diff never move
                <tr key={index} className="diff-skipped">
                  <td colSpan={4}>… {row.count} unchanged line(s)</td>
                </tr>
              ) : (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows of one diff never move
                <tr key={index} className={`diff-${row.kind}`}>
                  <td className="line-no">{row.kind === 'added' ? '' : row.oldLine}</td>
                  <td className="line-no">{row.kind === 'removed' ? '' : row.newLine}</td>
                  <td className="diff-sign" aria-label={row.kind === 'same' ? undefined : row.kind}>
                    {SIGN[row.kind]}
                  </td>
                  <td>
                    <pre>{row.text}</pre>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
