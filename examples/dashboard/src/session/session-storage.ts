/** Where the dashboard signs in: a Stratbox service and one of its users' API keys. */
export interface Session {
  /** The service, e.g. `http://localhost:3000` (no trailing `/api`). */
  baseUrl: string;
  apiKey: string;
}

const KEY = 'stratbox.session';

/**
 * The session of this tab, or null. It lives in `sessionStorage`: closing the tab forgets the
 * key, and other tabs never see it.
 */
export function readSession(storage: Storage = window.sessionStorage): Session | null {
  try {
    const value: unknown = JSON.parse(storage.getItem(KEY) ?? 'null');
    if (value && typeof value === 'object' && 'baseUrl' in value && 'apiKey' in value) {
      const { baseUrl, apiKey } = value as Record<string, unknown>;
      if (typeof baseUrl === 'string' && typeof apiKey === 'string' && apiKey) return { baseUrl, apiKey };
    }
  } catch {
    // a value another app left: ignored, as if signed out
  }
  return null;
}

/** Keeps `session` for this tab; null forgets it. */
export function writeSession(session: Session | null, storage: Storage = window.sessionStorage): void {
  if (session) storage.setItem(KEY, JSON.stringify(session));
  else storage.removeItem(KEY);
}
