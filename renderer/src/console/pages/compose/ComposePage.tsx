/**
 * Compose (/envelopes/new, /envelopes/:id/edit): title and message, PDFs, recipients in routing order, fields
 * placed on the pages, then Send or Save as template, each after a question (what sending does; the template's
 * name). Every action's failure is shown in the server's words; layout problems are shown on the fields they name.
 */
import { useMemo, useState } from 'react';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FieldEditor, type EditorParty } from '../../fields/FieldEditor';
import { partyColour } from '../../fields/field-kinds';
import { useT } from '../../i18n';
import { Link, useRouter } from '../../router';
import { editorDocument, saveAsTemplate, sendEnvelope } from './compose-api';
import { SendConfirmDialog, TemplateNameDialog } from './ComposeDialogs';
import { DetailsCard } from './DetailsCard';
import { DocumentsCard } from './DocumentsCard';
import { RecipientsCard } from './RecipientsCard';
import { inRoutingOrder } from './recipient-order';
import { LayoutRefused, useDraft } from './use-draft';
import './compose.css';

type Busy = 'saving' | 'sending' | 'template' | 'working' | null;

export function ComposePage({ params }: { params: Record<string, string> }) {
  const { t } = useT();
  const { navigate } = useRouter();
  const d = useDraft(params.id, t('compose.untitled'));
  const { draft } = d;
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
  const [activeDoc, setActiveDoc] = useState<string | null>(null);
  const [asking, setAsking] = useState<'template' | 'send' | null>(null);

  const ordered = useMemo(() => inRoutingOrder(draft.recipients), [draft.recipients]);
  const parties = useMemo<EditorParty[]>(
    () =>
      ordered.map((r) => ({ key: r.recipient_id, label: r.name, role: r.role, signatureMethod: r.signature_method })),
    [ordered],
  );
  const colourOf = (key: string) => partyColour(parties.findIndex((p) => p.key === key));
  const documents = useMemo(
    () => draft.documents.map((doc) => ({ doc, editor: editorDocument(doc) })),
    [draft.documents],
  );
  const current = documents.find((x) => x.doc.document_id === activeDoc) ?? documents[0];

  /** Runs an action: one at a time, its failure in words (a refused layout is shown on the fields instead). */
  const run = (kind: Exclude<Busy, null>, action: () => Promise<void>) => {
    if (busy) return;
    setBusy(kind);
    setError(undefined);
    setSaved(false);
    action()
      .catch((e: unknown) => {
        if (!(e instanceof LayoutRefused)) setError(e);
      })
      .finally(() => setBusy(null));
  };

  if (draft.status === 'loading') return <p role="status">{t('console.loading')}</p>;
  if (draft.status === 'failed') {
    return <ErrorNotice error={draft.loadError} onRetry={() => window.location.reload()} />;
  }
  if (draft.status === 'not-draft') {
    return (
      <section className="empty-state">
        <h1>{t('compose.notDraft.title')}</h1>
        <p>{t('compose.notDraft.body')}</p>
        <Link to={`/envelopes/${draft.id}`} className="button primary">
          {t('compose.notDraft.open')}
        </Link>
      </section>
    );
  }

  const canSend = draft.documents.length > 0 && draft.recipients.length > 0;
  // Checked as you place: every signer needs a Signature field somewhere (the server refuses to send otherwise).
  const placed = Object.values(draft.fields).flat();
  const unsigned = ordered.filter(
    (r) => r.role === 'signer' && !placed.some((f) => f.party === r.recipient_id && f.field_type === 1),
  );
  const hasActor = ordered.some((r) => r.role !== 'cc');
  // What the server would refuse (envelope_incomplete) is said here, so Send waits until nothing is missing.
  const missing = !canSend
    ? t('compose.sendNeeds')
    : !hasActor
      ? t('compose.needsActor')
      : unsigned.length > 0
        ? t('compose.needsSignature', { names: unsigned.map((r) => r.name).join(', ') })
        : null;
  const problemCount = Object.values(draft.fieldErrors).reduce((n, m) => n + m.size, 0);
  return (
    <div className="compose">
      <div className="page-head">
        <h1>{draft.id ? t('compose.editTitle') : t('compose.newTitle')}</h1>
        {draft.id && (
          <Link to="/envelopes" className="button small">
            {t('compose.backToList')}
          </Link>
        )}
      </div>
      <DetailsCard details={draft.details} onChange={d.setDetails} />
      <DocumentsCard
        documents={draft.documents}
        upload={draft.upload}
        busy={busy !== null}
        onFiles={(files) => run('working', () => d.uploadFiles(files))}
        onRemove={(id) => run('working', () => d.removeDocument(id))}
      />
      <RecipientsCard
        ordered={ordered}
        routing={draft.details.routing_order}
        busy={busy !== null}
        colourOf={colourOf}
        onAdd={(input, together) => run('working', () => d.addRecipient(input, together))}
        onUpdate={(id, input) => run('working', () => d.updateRecipient(id, input))}
        onRemove={(id) => run('working', () => d.removeRecipient(id))}
        onMove={(from, to) => run('working', () => d.moveRecipient(from, to))}
        onGroup={(index, together) => run('working', () => d.groupRecipient(index, together))}
      />
      <section className="card" aria-labelledby="compose-fields">
        <h2 id="compose-fields">{t('compose.fields.title')}</h2>
        {!current && <p className="muted">{t('compose.fields.needDocument')}</p>}
        {documents.length > 1 && (
          <div className="document-tabs" role="group" aria-label={t('compose.fields.documents')}>
            {documents.map(({ doc }) => (
              <button
                key={doc.document_id}
                type="button"
                className={`button small${doc.document_id === current?.doc.document_id ? ' primary' : ''}`}
                aria-pressed={doc.document_id === current?.doc.document_id}
                onClick={() => setActiveDoc(doc.document_id)}
              >
                {doc.filename}
                {(draft.fieldErrors[doc.document_id]?.size ?? 0) > 0 ? ' ⚠' : ''}
              </button>
            ))}
          </div>
        )}
        {current && (
          <FieldEditor
            key={current.doc.document_id}
            document={current.editor}
            parties={parties}
            fields={draft.fields[current.doc.document_id] ?? []}
            onChange={(fields) => d.setFields(current.doc.document_id, fields)}
            errors={draft.fieldErrors[current.doc.document_id]}
            emptySignatureFields={current.doc.signature_fields.filter((s) => !s.signed).map((s) => s.name)}
          />
        )}
      </section>
      <div className="compose-actions card" aria-live="polite">
        {problemCount > 0 && (
          <p className="notice notice-error" role="alert">
            {t('compose.layoutRefused', { count: problemCount })}
          </p>
        )}
        {draft.generalErrors.length > 0 && (
          <div className="notice notice-error" role="alert">
            {draft.generalErrors.map((m, i) => (
              <p key={i}>{m}</p>
            ))}
          </div>
        )}
        <ErrorNotice error={error} />
        {saved && <p className="notice notice-success">{t('compose.saved')}</p>}
        {busy && busy !== 'working' && <p role="status">{t(`compose.busy.${busy}`)}</p>}
        <div className="form-actions">
          <button
            type="button"
            className="button"
            disabled={busy !== null}
            onClick={() =>
              run('saving', async () => {
                await d.save();
                setSaved(true);
              })
            }
          >
            {t('compose.save')}
          </button>
          <button
            type="button"
            className="button"
            disabled={busy !== null || !canSend}
            onClick={() => setAsking('template')}
          >
            {t('compose.saveTemplate')}
          </button>
          <button
            type="button"
            className="button primary"
            disabled={busy !== null || missing !== null}
            aria-describedby={missing ? 'compose-send-missing' : undefined}
            onClick={() => setAsking('send')}
          >
            {t('compose.send')}
          </button>
        </div>
        {missing && (
          <p id="compose-send-missing" className="muted small-print">
            {missing}
          </p>
        )}
      </div>
      {asking === 'template' && (
        <TemplateNameDialog
          initialName={draft.details.title.trim() || t('compose.untitled')}
          onCancel={() => setAsking(null)}
          onSave={(name) => {
            setAsking(null);
            run('template', async () => {
              const id = await d.save();
              const template = await saveAsTemplate(id, name);
              navigate(`/templates/${template.template_id}`);
            });
          }}
        />
      )}
      {asking === 'send' && (
        <SendConfirmDialog
          title={draft.details.title.trim() || t('compose.untitled')}
          recipients={ordered}
          documents={draft.documents.length}
          sequential={draft.details.routing_order === 'sequential'}
          onCancel={() => setAsking(null)}
          onSend={() => {
            setAsking(null);
            run('sending', async () => {
              const id = await d.save();
              await sendEnvelope(id);
              navigate(`/envelopes/${id}`);
            });
          }}
        />
      )}
    </div>
  );
}
