/** The public verifier: choose or drop a PDF, see the report in words (ReportView), check another. */
import { useId, useState, type DragEvent } from 'react';
import { LanguageSwitch } from '../shared/LanguageSwitch';
import { useI18n } from '../i18n/i18n';
import { ReportView } from './ReportView';
import { verifyFile, type VerifyOutcome } from './report';

type State = { kind: 'idle' } | { kind: 'checking'; name: string } | VerifyOutcome;

export function VerifyPage() {
  const { t } = useI18n();
  const inputId = useId();
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [dragging, setDragging] = useState(false);

  const check = async (file: File | undefined) => {
    if (!file) return;
    setState({ kind: 'checking', name: file.name });
    setState(await verifyFile(file));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void check(event.dataTransfer.files[0]);
  };

  return (
    <div className="verify">
      <header className="verify-header">
        <span className="brand">Mohar</span>
        <LanguageSwitch />
      </header>
      <main className="verify-main">
        <h1>{t('verify.title')}</h1>
        <p className="muted">{t('verify.intro')}</p>
        <div
          className={`verify-drop${dragging ? ' dragging' : ''}`}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <label htmlFor={inputId} className="button primary">
            {state.kind === 'idle' || state.kind === 'checking' ? t('verify.choose') : t('verify.another')}
          </label>
          <input
            id={inputId}
            className="visually-hidden"
            type="file"
            accept="application/pdf,.pdf"
            onChange={(event) => {
              void check(event.target.files?.[0]);
              event.target.value = '';
            }}
          />
          <span className="muted">{t('verify.drop')}</span>
        </div>
        <div aria-live="polite">
          {state.kind === 'checking' && <p>{t('verify.checking', { name: state.name })}</p>}
          {state.kind === 'refused' && (
            <section className="verify-card bad" role="alert">
              <h2>{t('verify.error.title')}</h2>
              <p>{state.retryAfter !== null ? t('verify.error.rate', { seconds: state.retryAfter }) : state.detail}</p>
            </section>
          )}
          {state.kind === 'network' && (
            <section className="verify-card bad" role="alert">
              <h2>{t('verify.error.title')}</h2>
              <p>{t('verify.error.network')}</p>
            </section>
          )}
          {state.kind === 'report' && <ReportView report={state.report} />}
        </div>
      </main>
    </div>
  );
}
