import type { OptimizationDetail, OptimizationTrial } from '@stratbox/client';
import { type ReactNode, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatNumber, formatPercent } from '../ui/format.js';
import { type Column, PagedTable } from '../ui/paged-table.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { FoldSelect, foldCount } from './fold-select.js';
import { objectiveLabel } from './optimization-form-values.js';

type TrialSort = 'objective' | 'index';
const PAGE_SIZE = 50;

/** A column that sorts the trials (the service orders them: best first, or in search order). */
function sortColumn(
  sort: TrialSort,
  by: TrialSort,
  label: string,
  onSort: (by: TrialSort) => void,
  cell: (trial: OptimizationTrial) => ReactNode,
): Column<OptimizationTrial> {
  const active = sort === by;
  return {
    key: by,
    numeric: by === 'objective',
    sort: active ? (by === 'objective' ? 'descending' : 'ascending') : 'none',
    header: (
      <button type="button" className="sort-button" onClick={() => onSort(by)}>
        {label}
        <span aria-hidden="true">{active ? (by === 'objective' ? ' ▼' : ' ▲') : ''}</span>
      </button>
    ),
    cell,
  };
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
  const list = usePagedList(
    `trials:${id}:${sort}:${fold}:${optimization.status}`,
    (at, signal) => client.optimizations.trials({ params: { id }, query: { sort, limit: PAGE_SIZE, ...(fold !== null ? { fold } : {}), ...at } }, { signal }),
    (page) => page.trials,
  );
  const searched = Object.keys(optimization.searchSpace);
  const folds = optimization.validation.kind !== 'none';
  return (
    <section aria-labelledby="trials-title">
      <h2 id="trials-title">Trials</h2>
      <FoldSelect folds={foldCount(optimization.validation)} fold={fold} onChange={setFold} />
      <PagedTable
        list={list}
        errorTitle="Could not load the trials"
        loadingLabel="Loading the trials…"
        moreLabel="More trials"
        empty={<EmptyState title="No trials stored yet">They are listed as each slice of trials is stored.</EmptyState>}
        className="trials-table"
        caption={
          <>
            {optimization.trialsDone.toLocaleString('en')} trial(s) stored, {list.items.length.toLocaleString('en')} shown
            {fold !== null ? ` (fold ${fold + 1})` : ''}, {sort === 'objective' ? 'best first (feasible ones first)' : 'in search order'}
          </>
        }
        rowKey={(t) => t.index}
        rowProps={(t) => ({ className: t.feasible ? undefined : 'infeasible' })}
        columns={[
          sortColumn(sort, 'index', '#', setSort, (t) => t.index + 1),
          folds && { key: 'fold', header: 'Fold', cell: (t) => (t.fold === null ? '–' : t.fold + 1) },
          ...searched.map((name): Column<OptimizationTrial> => ({ key: `param:${name}`, header: name, cell: (t) => t.params[name] })),
          sortColumn(sort, 'objective', objectiveLabel(optimization.objective), setSort, (t) => formatNumber(t.objective)),
          { key: 'return', header: 'Return', numeric: true, cell: (t) => formatPercent(t.metrics?.totalReturn) },
          { key: 'drawdown', header: 'Max drawdown', numeric: true, cell: (t) => formatPercent(t.metrics?.maxDrawdown) },
          { key: 'trades', header: 'Trades', numeric: true, cell: (t) => t.metrics?.tradeCount ?? '–' },
          { key: 'feasible', header: 'Feasible', cell: (t) => (t.status === 'failed' ? `failed: ${t.error?.code ?? ''}` : t.feasible ? 'yes' : 'no') },
        ]}
      />
    </section>
  );
}
