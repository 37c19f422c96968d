/**
 * Client-side routes under /app (the server answers console.html for every path there). A few lines of
 * history API instead of a router library: the console has a handful of flat routes and no nested layouts.
 */
import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useState,
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactNode,
} from 'react';

export const CONSOLE_BASE = '/app';

interface Location {
  /** The path below /app, starting with / ("/envelopes/123"). */
  path: string;
  query: URLSearchParams;
}

interface Router extends Location {
  navigate(to: string, options?: { replace?: boolean }): void;
}

function current(): Location {
  const full = window.location.pathname;
  const path = full.startsWith(CONSOLE_BASE) ? full.slice(CONSOLE_BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(window.location.search) };
}

const RouterContext = createContext<Router>({ ...current(), navigate: () => undefined });

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState<Location>(current);
  useEffect(() => {
    const onPop = () => setLocation(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const router = useMemo<Router>(
    () => ({
      ...location,
      navigate(to, options = {}) {
        const url = `${CONSOLE_BASE}${to}`;
        if (options.replace) window.history.replaceState(null, '', url);
        else window.history.pushState(null, '', url);
        setLocation(current());
        window.scrollTo(0, 0);
      },
    }),
    [location],
  );
  return <RouterContext.Provider value={router}>{children}</RouterContext.Provider>;
}

export function useRouter(): Router {
  return useContext(RouterContext);
}

/** Matches "/envelopes/:id" against a path; the named parts, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i]!;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(got[i]!);
    else if (part !== got[i]) return null;
  }
  return params;
}

/** An <a> that navigates inside the console (a real link: open in a new tab, copy address, middle-click work). */
export function Link({
  to,
  children,
  ...rest
}: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const { navigate } = useRouter();
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    ) {
      return;
    }
    event.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={`${CONSOLE_BASE}${to}`} onClick={onClick}>
      {children}
    </a>
  );
}
