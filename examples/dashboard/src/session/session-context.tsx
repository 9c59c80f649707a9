import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { readSession, type Session, writeSession } from './session-storage.js';

interface SessionValue {
  session: Session | null;
  /** The typed client of the session (null when signed out). */
  client: StratboxClient | null;
  signIn(session: Session): void;
  signOut(): void;
}

const SessionContext = createContext<SessionValue | null>(null);

/** Holds the session of this tab and the one client every page calls through. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(() => readSession());
  const client = useMemo(() => (session ? createStratboxClient({ baseUrl: session.baseUrl, apiKey: session.apiKey }) : null), [session]);
  // a client's WebSocket closes with it: when the session changes or the app unmounts
  useEffect(() => () => client?.realtime.close(), [client]);
  const signIn = useCallback((next: Session) => {
    writeSession(next);
    setSession(next);
  }, []);
  const signOut = useCallback(() => {
    writeSession(null);
    setSession(null);
  }, []);
  const value = useMemo(() => ({ session, client, signIn, signOut }), [session, client, signIn, signOut]);
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
