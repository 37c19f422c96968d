/**
 * /bulk-sends/new: one agreement to many people. Choose the source, get a sample CSV made for it, upload the
 * CSV; every row is shown with its problems BEFORE anything is queued (the browser's parse first, then the
 * server's POST /bulk-sends/validate), and only a clean file can be sent (POST /bulk-sends, one
 * Idempotency-Key per checked file, so a double click queues one batch).
 */
import { useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { rowsFromCsv, csvErrorsOfProblem, type BulkCsvResult } from '../../../../../common/bulk-csv';
import { api, ApiError } from '../../api';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useT } from '../../i18n';
import { useRouter } from '../../router';
import { useResource } from '../../use-resource';
import { newIdempotencyKey } from '../templates/model';
import { CsvPreview } from './CsvPreview';
import type { SourceFormat } from './model';
import { SourcePicker, sourceParams, type Source } from './SourcePicker';
import '../templates/templates.css';
import './bulk.css';

type Check =
  | { state: 'idle' }
  | { state: 'checking' }
  | { state: 'valid' }
  | { state: 'invalid' }
  | { state: 'failed'; error: unknown };

function saveText(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function FormatSummary({ format }: { format: SourceFormat }) {
  const { t } = useT();
  return (
    <div className="format-summary">
      <p>{t('bulk.format.slots', { count: format.recipient_slots.length })}</p>
      <ul>
        {format.recipient_slots.map((s) => (
          <li key={s.slot}>
            <code>recipient_{s.slot}_name</code>, <code>recipient_{s.slot}_email</code>{' '}
            <span className="muted small">
              ({s.label ?? s.role_key ?? s.role}, {s.role}, {s.signature_method})
            </span>
          </li>
        ))}
      </ul>
      {format.merge_fields.length > 0 ? (
        <>
          <p>{t('bulk.format.fields')}</p>
          <ul>
            {format.merge_fields.map((f) => (
              <li key={f.key}>
                <code>field.{f.key}</code>{' '}
                <span className="muted small">
                  ({t(`bulk.type.${f.type}`)}
                  {f.required ? `, ${t('bulk.format.required')}` : ''}
                  {f.options ? `: ${f.options.join(' / ')}` : ''})
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">{t('bulk.format.noFields')}</p>
      )}
      <button
        type="button"
        className="button"
        onClick={() =>
          saveText(format.sample_csv, `${format.source.title.replace(/[^\w.-]+/g, '-') || 'bulk'}-sample.csv`)
        }
      >
        {t('bulk.format.sample')}
      </button>
    </div>
  );
}

function CsvInput({ onText, fileName }: { onText(text: string, name: string): void; fileName: string | null }) {
  const { t } = useT();
  const [over, setOver] = useState(false);
  const read = async (file: File | undefined) => {
    if (file) onText(await file.text(), file.name);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    void read(event.dataTransfer.files[0]);
  };
  return (
    <div className="form-field">
      <label htmlFor="bulk-csv">{t('bulk.new.csv')}</label>
      <div
        className={`drop-zone${over ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>{t('bulk.new.drop')}</p>
        <input
          id="bulk-csv"
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            void read(e.target.files?.[0]);
            e.target.value = '';
          }}
        />
        {fileName && <p className="small">{t('bulk.new.file', { name: fileName })}</p>}
      </div>
    </div>
  );
}

export function NewBulkSendPage(_props: { params: Record<string, string> }) {
  const { t } = useT();
  const { query, navigate } = useRouter();
  const [source, setSource] = useState<Source>(() =>
    query.get('envelope')
      ? { kind: 'envelope', id: query.get('envelope')!, version: null }
      : { kind: 'template', id: query.get('template') ?? '', version: null },
  );
  const [csv, setCsv] = useState<{ text: string; name: string } | null>(null);
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const [serverErrors, setServerErrors] = useState<BulkCsvResult['errors']>([]);
  const [sending, setSending] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const sendRef = useRef<HTMLButtonElement>(null);
  const format = useResource(
    (signal) =>
      source.id
        ? api<SourceFormat>(
            'GET',
            `/bulk-sends/source-format?${new URLSearchParams(Object.entries(sourceParams(source)).map(([k, v]) => [k, String(v)])).toString()}`,
            { signal },
          )
        : Promise.resolve(undefined),
    [source.kind, source.id, source.version],
  );
  const parsed = useMemo(() => (csv && format.data ? rowsFromCsv(csv.text, format.data) : null), [csv, format.data]);
  // A new key whenever the rows change: the same rows sent twice replay, other rows are another batch.
  const idempotencyKey = useMemo(newIdempotencyKey, [parsed, source]);

  useEffect(() => {
    setServerErrors([]);
    setSending(null);
    if (!parsed || parsed.errors.length > 0 || parsed.rows.length === 0) return setCheck({ state: 'idle' });
    const controller = new AbortController();
    setCheck({ state: 'checking' });
    api('POST', '/bulk-sends/validate', {
      json: { ...sourceParams(source), rows: parsed.rows },
      signal: controller.signal,
    }).then(
      () => {
        setCheck({ state: 'valid' });
        requestAnimationFrame(() => sendRef.current?.focus());
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && error.code === 'invalid_rows') {
          setServerErrors(
            csvErrorsOfProblem(
              (error.problem?.errors ?? []) as { index?: number; path?: string; code?: string; message: string }[],
              parsed.lines,
            ),
          );
          setCheck({ state: 'invalid' });
        } else setCheck({ state: 'failed', error });
      },
    );
    return () => controller.abort();
  }, [parsed, source]);

  const send = async () => {
    if (!parsed || busy) return;
    setBusy(true);
    setSending(null);
    try {
      const accepted = await api<{ bulk_send_id: string }>('POST', '/bulk-sends', {
        headers: { 'idempotency-key': idempotencyKey },
        json: { ...sourceParams(source), rows: parsed.rows },
      });
      navigate(`/bulk-sends/${accepted.bulk_send_id}`);
    } catch (error) {
      setSending(error);
      setBusy(false);
    }
  };

  const errors = [...(parsed?.errors ?? []), ...serverErrors];
  const badRows = new Set(errors.map((e) => e.row_index)).size;
  return (
    <>
      <div className="page-head">
        <h1>{t('bulk.new.title')}</h1>
      </div>
      <p className="muted">{t('bulk.new.intro')}</p>
      <div className="card tpl-form">
        <SourcePicker
          source={source}
          onChange={(next) => {
            setSource(next);
            setCheck({ state: 'idle' });
          }}
        />
        {source.id && (
          <fieldset>
            <legend>{t('bulk.new.step2')}</legend>
            <ErrorNotice error={format.error} onRetry={format.reload} />
            {format.loading && !format.data && <p role="status">{t('console.loading')}</p>}
            {format.data && <FormatSummary format={format.data} />}
            {format.data && <CsvInput fileName={csv?.name ?? null} onText={(text, name) => setCsv({ text, name })} />}
          </fieldset>
        )}
        {parsed && (
          <fieldset>
            <legend>{t('bulk.new.step3')}</legend>
            <div role="status" aria-live="polite" className="check-status">
              {errors.length > 0 && (
                <p className="notice notice-error">
                  {t('bulk.check.problems', { count: errors.length, rows: badRows })}
                </p>
              )}
              {check.state === 'checking' && (
                <p className="notice">{t('bulk.check.checking', { count: parsed.rows.length })}</p>
              )}
              {check.state === 'valid' && (
                <p className="notice notice-success">{t('bulk.check.valid', { count: parsed.rows.length })}</p>
              )}
            </div>
            {check.state === 'failed' && <ErrorNotice error={check.error} />}
            <CsvPreview rows={parsed.rows} lines={parsed.lines} errors={errors} />
            <ErrorNotice error={sending} />
            <div className="form-actions">
              <button
                ref={sendRef}
                type="button"
                className="button primary"
                disabled={check.state !== 'valid' || busy}
                onClick={() => void send()}
              >
                {busy ? t('bulk.new.sending') : t('bulk.new.send', { count: parsed.rows.length })}
              </button>
            </div>
          </fieldset>
        )}
      </div>
    </>
  );
}
