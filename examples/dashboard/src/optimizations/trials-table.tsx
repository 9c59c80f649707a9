import type { OptimizationDetail, OptimizationTrial } from '@stratbox/client';
import { useState } from 'react';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatNumber, formatPercent } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { FoldSelect, foldCount } from './fold-select.js';
import { objectiveLabel } from './optimization-form-values.js';

type TrialSort = 'objective' | 'index';
const PAGE_SIZE = 50;

/** A column header that sorts the trials (the service orders them: best first, or in search order). */
function SortHeader({ sort, by, label, onSort }: { sort: TrialSort; by: TrialSort; label: string; onSort(by: TrialSort): void }) {
  const active = sort === by;
  return (
    <th scope="col" aria-sort={active ? (by === 'objective' ? 'descending' : 'ascending') : 'none'} className={by === 'objective' ? 'numeric' : undefined}>
      <button type="button" className="sort-button" onClick={() => onSort(by)}>
        {label}
        <span aria-hidden="true">{active ? (by === 'objective' ? ' ▼' : ' ▲') : ''}</span>
      </button>
    </th>
  );
}

/**
 * Every trial, 50 a page: best first (feasible ones before the rest, as the API orders them) or
 * in search order; with two validation folds or more, all of them or one fold's (the API filters).
 * Loaded again when the optimization's status changes.
 */
export function TrialsTable({ optimization }: { optimization: OptimizationDetail }) {
  const client = useClient();
  const [sort, setSort] = useState<TrialSort>('objective');
  const [fold, setFold] = useState<number | null>(null);
  const id = optimization.id;
  const list = usePagedList<OptimizationTrial>(`trials:${id}:${sort}:${fold}:${optimization.status}`, async (cursor, signal) => {
    const query = { sort, limit: PAGE_SIZE, ...(fold !== null ? { fold } : {}), ...(cursor ? { cursor } : {}) };
    const page = await client.optimizations.trials({ params: { id }, query }, { signal });
    return { items: page.trials, nextCursor: page.nextCursor };
  });
  const searched = Object.keys(optimization.searchSpace);
  const folds = optimization.validation.kind !== 'none';
  return (
    <section aria-labelledby="trials-title">
      <h2 id="trials-title">Trials</h2>
      <FoldSelect folds={foldCount(optimization.validation)} fold={fold} onChange={setFold} />
      <PagedListView
        list={list}
        errorTitle="Could not load the trials"
        loadingLabel="Loading the trials…"
        moreLabel="More trials"
        empty={<EmptyState title="No trials stored yet">They are listed as each slice of trials is stored.</EmptyState>}
      >
        <div className="table-wrap">
          <table className="trials-table">
            <caption>
              {optimization.trialsDone.toLocaleString('en')} trial(s) stored, {list.items.length.toLocaleString('en')} shown
              {fold !== null ? ` (fold ${fold + 1})` : ''}, {sort === 'objective' ? 'best first (feasible ones first)' : 'in search order'}
            </caption>
            <thead>
              <tr>
                <SortHeader sort={sort} by="index" label="#" onSort={setSort} />
                {folds ? <th scope="col">Fold</th> : null}
                {searched.map((name) => (
                  <th key={name} scope="col">
                    {name}
                  </th>
                ))}
                <SortHeader sort={sort} by="objective" label={objectiveLabel(optimization.objective)} onSort={setSort} />
                <th scope="col" className="numeric">
                  Return
                </th>
                <th scope="col" className="numeric">
                  Max drawdown
                </th>
                <th scope="col" className="numeric">
                  Trades
                </th>
                <th scope="col">Feasible</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((t) => (
                <tr key={t.index} className={t.feasible ? undefined : 'infeasible'}>
                  <th scope="row">{t.index + 1}</th>
                  {folds ? <td>{t.fold === null ? '–' : t.fold + 1}</td> : null}
                  {searched.map((name) => (
                    <td key={name}>{t.params[name]}</td>
                  ))}
                  <td className="numeric">{formatNumber(t.objective)}</td>
                  <td className="numeric">{formatPercent(t.metrics?.totalReturn)}</td>
                  <td className="numeric">{formatPercent(t.metrics?.maxDrawdown)}</td>
                  <td className="numeric">{t.metrics?.tradeCount ?? '–'}</td>
                  <td>{t.status === 'failed' ? `failed: ${t.error?.code ?? ''}` : t.feasible ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </PagedListView>
    </section>
  );
}
