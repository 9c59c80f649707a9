import { useCallback, useEffect, useState } from 'react';

export interface LiveListKey {
  /** The list's key part: changes when the list should load its first page again. */
  key: string;
  /** Loads the next page and holds the list still from then on: a live refresh would drop the pages paged to. */
  more(loadMore: () => void): void;
  /** The Refresh button: back to the first page, following live refreshes again. */
  refresh(): void;
}

/**
 * The key of a paged list that follows the page's live refreshes (`refresh`, bumped on every
 * order) while it shows its first page only, and stays put once the user paged on.
 */
export function useLiveListKey(refresh: number): LiveListKey {
  const [held, setHeld] = useState(false);
  const [shown, setShown] = useState(refresh);
  const [manual, setManual] = useState(0);
  useEffect(() => {
    if (!held) setShown(refresh);
  }, [refresh, held]);
  const more = useCallback((loadMore: () => void) => {
    setHeld(true);
    loadMore();
  }, []);
  const again = useCallback(() => {
    setHeld(false);
    setManual((n) => n + 1);
  }, []);
  return { key: `${shown}:${manual}`, more, refresh: again };
}
