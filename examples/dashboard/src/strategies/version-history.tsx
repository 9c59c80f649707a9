import type { StrategyVersionEntry } from '@stratbox/client';
import { type FormEvent, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { formatTime } from '../ui/format.js';
import { Loading } from '../ui/loading.js';
import { useAction } from '../ui/use-action.js';
import { VersionDiff } from './version-diff.js';

interface Compared {
  from: number;
  to: number;
  before: string;
  after: string;
}

/** A strategy's versions (newest first) and the diff of any two of them. */
export function VersionHistory({ strategyId, versions }: { strategyId: string; versions: StrategyVersionEntry[] }) {
  const client = useClient();
  const newest = versions[0]?.version ?? 1;
  const [from, setFrom] = useState(Math.max(1, newest - 1));
  const [to, setTo] = useState(newest);
  const [compared, setCompared] = useState<Compared | null>(null);
  const comparing = useAction();
  const { error, busy: loading } = comparing;

  async function compare(event: FormEvent) {
    event.preventDefault();
    await comparing.run(async () => {
      const [a, b] = await Promise.all([
        client.strategies.get({ params: { id: strategyId }, query: { version: from } }),
        client.strategies.get({ params: { id: strategyId }, query: { version: to } }),
      ]);
      setCompared({ from, to, before: a.source, after: b.source });
    });
  }

  const options = versions.map((v) => (
    <option key={v.version} value={v.version}>
      v{v.version} ({formatTime(v.createdAt)})
    </option>
  ));
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Version history</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Saved</th>
              <th scope="col">Size</th>
              <th scope="col">SHA-256</th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version}>
                <th scope="row">v{v.version}</th>
                <td>{formatTime(v.createdAt)}</td>
                <td>{v.sizeBytes.toLocaleString('en')} bytes</td>
                <td>
                  <code title={v.sourceSha256}>{v.sourceSha256.slice(0, 12)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {versions.length < 2 ? (
        <p className="muted">Every save that changes the source makes a new version; with two you can compare them here.</p>
      ) : (
        <form className="form-row compare-form" onSubmit={compare}>
          <div className="field">
            <label htmlFor="diff-from">From</label>
            <select id="diff-from" value={from} onChange={(e) => setFrom(Number(e.target.value))}>
              {options}
            </select>
          </div>
          <div className="field">
            <label htmlFor="diff-to">To</label>
            <select id="diff-to" value={to} onChange={(e) => setTo(Number(e.target.value))}>
              {options}
            </select>
          </div>
          <button type="submit" disabled={loading}>
            Compare
          </button>
        </form>
      )}
      <ErrorBanner error={error} title="Could not load the versions" />
      {loading ? <Loading label="Loading both versions…" /> : null}
      {compared && !loading ? <VersionDiff before={compared.before} after={compared.after} fromVersion={compared.from} toVersion={compared.to} /> : null}
    </section>
  );
}
