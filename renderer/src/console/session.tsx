/** Who is logged in: resumed from the refresh cookie on load, set by the login page, cleared by logout. */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { logIn, logOut, onSessionEnded, resumeSession, type ConsoleUser } from './api';

type SessionState =
  | { status: 'loading' }
  | { status: 'anonymous'; ended: boolean; error?: unknown }
  | { status: 'authenticated'; user: ConsoleUser };

interface Session {
  state: SessionState;
  logIn(email: string, password: string): Promise<void>;
  logOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const resume = useCallback(() => {
    resumeSession().then(
      (user) => setState(user ? { status: 'authenticated', user } : { status: 'anonymous', ended: false }),
      (error: unknown) => setState({ status: 'anonymous', ended: false, error }),
    );
  }, []);
  useEffect(resume, [resume]);
  useEffect(() => onSessionEnded(() => setState({ status: 'anonymous', ended: true })), []);
  const session = useMemo<Session>(
    () => ({
      state,
      async logIn(email, password) {
        setState({ status: 'authenticated', user: await logIn(email, password) });
      },
      async logOut() {
        try {
          await logOut();
        } finally {
          setState({ status: 'anonymous', ended: false });
        }
      },
    }),
    [state],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The logged-in user; only for pages rendered inside the authenticated app. */
export function useUser(): ConsoleUser {
  const { state } = useSession();
  if (state.status !== 'authenticated') throw new Error('useUser without a session');
  return state.user;
}
