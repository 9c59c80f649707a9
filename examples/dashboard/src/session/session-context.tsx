import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { readSession, type Session, writeSession } from './session-storage.js';

interface SessionValue {
  session: Session | null;
  /** The typed client of the session (null when signed out). */
  client: StratboxClient | null;
  signIn(session: Session): void;
  signOut(): void;
}

interface Current {
  session: Session | null;
  client: StratboxClient | null;
}

const SessionContext = createContext<SessionValue | null>(null);

const open = (session: Session | null): Current => ({
  session,
  client: session ? createStratboxClient({ baseUrl: session.baseUrl, apiKey: session.apiKey }) : null,
});

let initial: Current | undefined;
/**
 * The session this tab opened with and its client, made once: the provider starts with it, and
 * main.tsx sends the first page's request through the same client before the first render.
 */
export function initialSession(): Current {
  initial ??= open(readSession());
  return initial;
}

/**
 * Holds the session of this tab and the one client every page calls through. A client lives as
 * long as its session: signing in again or out closes its WebSocket.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [current, setCurrent] = useState<Current>(initialSession);
  const replace = useCallback((session: Session | null) => {
    writeSession(session);
    setCurrent((previous) => {
      previous.client?.realtime.close();
      return open(session);
    });
  }, []);
  const signIn = useCallback((session: Session) => replace(session), [replace]);
  const signOut = useCallback(() => replace(null), [replace]);
  const value = useMemo(() => ({ ...current, signIn, signOut }), [current, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The session and its actions. */
export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The signed-in client; only pages shown after sign-in call it. */
export function useClient(): StratboxClient {
  const { client } = useSession();
  if (!client) throw new Error('useClient while signed out');
  return client;
}
