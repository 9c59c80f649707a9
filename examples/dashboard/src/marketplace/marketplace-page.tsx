import { type FormEvent, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { ListingCard } from './listing-card.js';
import { parseTags } from './listing-values.js';
import { MarketplaceTabs } from './marketplace-tabs.js';
import { BADGES, evidenceFilters, SORTS, type SortKey } from './record-values.js';

interface Applied {
  search: string;
  tags: string[];
  sort: SortKey;
  minBadge: string;
  minForwardDays: string;
}

const NONE: Applied = { search: '', tags: [], sort: 'newest', minBadge: 'insufficient', minForwardDays: '' };

/**
 * Every seller's listings, each with its verified record's badge and forward figures: searched by
 * text, filtered by tags (a listing must carry them all), by a minimum badge and forward days,
 * sorted newest first or by the verified record (highest first).
 */
export function MarketplacePage() {
  const client = useClient();
  const [search, setSearch] = useState('');
  const [tagsText, setTagsText] = useState('');
  const [minBadge, setMinBadge] = useState(NONE.minBadge);
  const [minForwardDays, setMinForwardDays] = useState('');
  const [applied, setApplied] = useState<Applied>(NONE);
  const evidence = evidenceFilters(applied.minBadge, applied.minForwardDays);
  const key = `marketplace:${applied.search}:${applied.tags.join(',')}:${applied.sort}:${evidence.minBadge ?? ''}:${evidence.minForwardDays ?? ''}`;
  const list = usePagedList(
    key,
    (at, signal) => {
      const query = {
        limit: 20,
        ...(applied.search ? { search: applied.search } : {}),
        ...(applied.tags.length ? { tags: applied.tags.join(',') } : {}),
        ...(applied.sort !== 'newest' ? { sort: applied.sort } : {}),
        ...evidence,
        ...at,
      };
      return client.marketplace.search({ query }, { signal });
    },
    (page) => page.listings,
  );
  const filtered = applied.search !== '' || applied.tags.length > 0 || Object.keys(evidence).length > 0;
  const current = (): Omit<Applied, 'sort'> => ({ search: search.trim(), tags: parseTags(tagsText), minBadge, minForwardDays });

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setApplied((a) => ({ ...current(), sort: a.sort }));
  };
  const addTag = (tag: string) => {
    const tags = parseTags(`${tagsText} ${tag}`);
    setTagsText(tags.join(', '));
    setApplied((a) => ({ ...current(), tags, sort: a.sort }));
  };
  const sortBy = (sort: SortKey) => setApplied((a) => ({ ...a, sort }));
  const clear = () => {
    setSearch('');
    setTagsText('');
    setMinBadge(NONE.minBadge);
    setMinForwardDays('');
    setApplied((a) => ({ ...NONE, sort: a.sort }));
  };

  return (
    <section>
      <h1>Marketplace</h1>
      <MarketplaceTabs current="marketplace" />
      <search>
        <form className="form-row filters" onSubmit={apply}>
          <div className="field grow">
            <label htmlFor="market-search">Search</label>
            <input
              id="market-search"
              type="search"
              value={search}
              maxLength={200}
              onChange={(e) => setSearch(e.target.value)}
              placeholder="Name or description"
            />
          </div>
          <div className="field grow">
            <label htmlFor="market-tags">Tags</label>
            <input
              id="market-tags"
              value={tagsText}
              onChange={(e) => setTagsText(e.target.value)}
              placeholder="trend, btc"
              aria-describedby="market-tags-hint"
              spellCheck={false}
            />
            <span className="hint" id="market-tags-hint">
              Separated by commas; a listing must carry every one
            </span>
          </div>
          <div className="field">
            <label htmlFor="market-min-badge">Minimum badge</label>
            <select id="market-min-badge" value={minBadge} onChange={(e) => setMinBadge(e.target.value)}>
              {BADGES.map((badge) => (
                <option key={badge} value={badge}>
                  {badge === 'insufficient' ? 'any' : badge}
                </option>
              ))}
            </select>
          </div>
          <div className="field narrow">
            <label htmlFor="market-min-days">Min. forward days</label>
            <input
              id="market-min-days"
              type="number"
              inputMode="numeric"
              min={0}
              max={100000}
              step={1}
              value={minForwardDays}
              onChange={(e) => setMinForwardDays(e.target.value)}
            />
          </div>
          <div className="field actions">
            <button type="submit" className="primary">
              Search
            </button>
            {filtered ? (
              <button type="button" onClick={clear}>
                Clear
              </button>
            ) : null}
          </div>
        </form>
      </search>
      <div className="form-row sort-row">
        <div className="field">
          <label htmlFor="market-sort">Sort by</label>
          <select id="market-sort" value={applied.sort} onChange={(e) => sortBy(e.target.value as SortKey)}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <p className="muted small">
          Badges and figures are the platform’s own: its backtest of the listed version and the forward record since listing.{' '}
          {applied.sort !== 'newest' ? 'Highest first; listings without the figure last.' : ''}
        </p>
      </div>
      <p className="muted small" aria-live="polite">
        {list.loading ? '' : filtered ? `${list.items.length}${list.hasMore ? '+' : ''} listing(s) match.` : ''}
      </p>
      <PagedListView
        list={list}
        errorTitle="Could not load the marketplace"
        loadingLabel="Loading listings…"
        moreLabel="More listings"
        empty={
          <EmptyState title={filtered ? 'No listing matches' : 'Nothing listed yet'}>
            <p>
              {filtered
                ? 'Try fewer tags, another word or a weaker evidence filter.'
                : 'Sell one of your strategies from My listings: buyers run it without seeing its source.'}
            </p>
          </EmptyState>
        }
      >
        <ul className="listing-cards">
          {list.items.map((listing) => (
            <ListingCard key={listing.id} listing={listing} onTag={addTag} />
          ))}
        </ul>
      </PagedListView>
    </section>
  );
}
