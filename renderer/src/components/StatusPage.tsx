/** A full page with one message: loading, a dead link, not your turn. The heading takes focus so it is read out. */
import { useEffect, useRef, type ReactNode } from 'react';
import { LanguageSwitch } from '../shared/LanguageSwitch';

interface Props {
  title: string;
  body?: string;
  busy?: boolean;
  tone?: 'info' | 'success' | 'warning';
  children?: ReactNode;
}

export function StatusPage({ title, body, busy = false, tone = 'info', children }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!busy) heading.current?.focus();
  }, [busy, title]);
  return (
    <div className="status-layout">
      <div className="status-top">
        <span className="brand">Mohar</span>
        <LanguageSwitch />
      </div>
      <main className={`status-card tone-${tone}`} aria-busy={busy}>
        {busy && <div className="spinner" aria-hidden="true" />}
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {body && <p>{body}</p>}
        {children}
      </main>
    </div>
  );
}
