const CHANGE = 'stratbox:navigate';

/** Moves to `path` in this page (history entry, no reload); `replace` overwrites the current entry. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(CHANGE));
  window.scrollTo(0, 0);
}

/** Calls `listener` whenever the address changes (links, back and forward); returns what stops it. */
export function onNavigate(listener: () => void): () => void {
  window.addEventListener(CHANGE, listener);
  window.addEventListener('popstate', listener);
  return () => {
    window.removeEventListener(CHANGE, listener);
    window.removeEventListener('popstate', listener);
  };
}
