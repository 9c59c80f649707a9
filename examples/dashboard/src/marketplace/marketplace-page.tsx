import { type FormEvent, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import type { Listing } from './listing.js';
import { ListingCard } from './listing-card.js';
import { parseTags } from './listing-values.js';
import { MarketplaceTabs } from './marketplace-tabs.js';

/** Every seller's listings, newest first: searched by text, filtered by tags (a listing must carry them all). */
export function MarketplacePage() {
  const client = useClient();
  const [search, setSearch] = useState('');
  const [tagsText, setTagsText] = useState('');
  const [applied, setApplied] = useState({ search: '', tags: [] as string[] });
  const list = usePagedList<Listing>(`marketplace:${applied.search}:${applied.tags.join(',')}`, async (cursor, signal) => {
    const query = {
      limit: 20,
      ...(applied.search ? { search: applied.search } : {}),
      ...(applied.tags.length ? { tags: applied.tags.join(',') } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const page = await client.marketplace.search({ query }, { signal });
    return { items: page.listings, nextCursor: page.nextCursor };
  });
  const filtered = applied.search !== '' || applied.tags.length > 0;

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setApplied({ search: search.trim(), tags: parseTags(tagsText) });
  };
  const addTag = (tag: string) => {
    const tags = parseTags(`${tagsText} ${tag}`);
    setTagsText(tags.join(', '));
    setApplied({ search: search.trim(), tags });
  };
  const clear = () => {
    setSearch('');
    setTagsText('');
    setApplied({ search: '', tags: [] });
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
            <p>{filtered ? 'Try fewer tags or another word.' : 'Sell one of your strategies from My listings: buyers run it without seeing its source.'}</p>
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
