/**
 * The draft being composed: what the server has (envelope, documents, recipients) and what is edited here
 * (details, fields per document), and the actions that save them. A new envelope is created on the first
 * action that needs one (upload, add recipient, save).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../api';
import type { EditorField } from '../../fields/FieldEditor';
import { CONSOLE_BASE } from '../../router';
import * as draftApi from './compose-api';
import type { DetailsInput, DocumentView, EnvelopeView, RecipientInput, RecipientView } from './compose-api';
import type { UploadState } from './DocumentsCard';
import { inRoutingOrder, moved, regrouped } from './recipient-order';

/** Thrown after a 422 invalid_field_layout: the problems are shown on the fields, not as one message. */
export class LayoutRefused extends Error {}

export interface Draft {
  id: string | null;
  status: 'loading' | 'ready' | 'failed' | 'not-draft';
  loadError: unknown;
  details: DetailsInput;
  documents: DocumentView[];
  recipients: RecipientView[];
  fields: Record<string, EditorField[]>;
  fieldErrors: Record<string, ReadonlyMap<string, string>>;
  generalErrors: string[];
  upload: UploadState;
}

const EMPTY: DetailsInput = { title: '', message: '', routing_order: 'sequential' };

export function useDraft(envelopeId: string | undefined, untitled: string) {
  const [draft, setDraft] = useState<Draft>({
    id: envelopeId ?? null,
    status: envelopeId ? 'loading' : 'ready',
    loadError: undefined,
    details: EMPTY,
    documents: [],
    recipients: [],
    fields: {},
    fieldErrors: {},
    generalErrors: [],
    upload: { current: null, failures: [] },
  });
  // Actions read the latest state through the ref (several awaits apart) instead of stale closures.
  const ref = useRef(draft);
  ref.current = draft;
  const detailsDirty = useRef(false);
  /** Fields or details changed since the last save: leaving the page asks first. */
  const unsaved = useRef(false);
  useEffect(() => {
    const onLeave = (event: BeforeUnloadEvent) => {
      if (unsaved.current) event.preventDefault();
    };
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, []);
  const patch = useCallback(
    (change: Partial<Draft> | ((d: Draft) => Partial<Draft>)) =>
      setDraft((d) => ({ ...d, ...(typeof change === 'function' ? change(d) : change) })),
    [],
  );

  const adopt = useCallback(
    (envelope: EnvelopeView) => {
      patch({
        id: envelope.id,
        status: envelope.status === 'draft' ? 'ready' : 'not-draft',
        details: { title: envelope.title, message: envelope.message ?? '', routing_order: envelope.routing_order },
        documents: envelope.documents,
        recipients: envelope.recipients,
        fields: Object.fromEntries(
          envelope.documents.map((d) => [d.document_id, (d.fields ?? []).map(draftApi.toEditorField)]),
        ),
      });
    },
    [patch],
  );

  useEffect(() => {
    if (!envelopeId) return;
    const controller = new AbortController();
    draftApi
      .loadEnvelope(envelopeId, controller.signal)
      .then(adopt, (error: unknown) => !controller.signal.aborted && patch({ status: 'failed', loadError: error }));
    return () => controller.abort();
  }, [envelopeId, adopt, patch]);

  const ensureEnvelope = useCallback(
    async (fallbackTitle?: string): Promise<string> => {
      if (ref.current.id) return ref.current.id;
      const details = { ...ref.current.details, title: ref.current.details.title.trim() || fallbackTitle || untitled };
      const envelope = await draftApi.createEnvelope(details);
      detailsDirty.current = false;
      patch({ id: envelope.id, details });
      ref.current = { ...ref.current, id: envelope.id };
      // The address becomes the draft's own (a reload reopens it) without remounting the page mid-action.
      window.history.replaceState(null, '', `${CONSOLE_BASE}/envelopes/${envelope.id}/edit`);
      return envelope.id;
    },
    [patch, untitled],
  );

  const setDetails = useCallback(
    (details: DetailsInput) => {
      detailsDirty.current = true;
      unsaved.current = true;
      patch({ details });
    },
    [patch],
  );

  /** Title, message and routing order to the server (before recipients are numbered by the routing order). */
  const saveDetails = useCallback(
    async (id: string) => {
      if (!detailsDirty.current) return;
      await draftApi.patchEnvelope(id, { ...ref.current.details, title: ref.current.details.title.trim() || untitled });
      detailsDirty.current = false;
    },
    [untitled],
  );

  const setFields = useCallback(
    (documentId: string, next: EditorField[]) => {
      unsaved.current = true;
      patch((d) => {
        // A field the user changed has left the server's complaint behind.
        const before = new Map((d.fields[documentId] ?? []).map((f) => [f.id, f]));
        const errors = new Map(d.fieldErrors[documentId] ?? []);
        for (const f of next) if (before.get(f.id) !== f) errors.delete(f.id);
        return { fields: { ...d.fields, [documentId]: next }, fieldErrors: { ...d.fieldErrors, [documentId]: errors } };
      });
    },
    [patch],
  );

  const uploadFiles = useCallback(
    async (files: File[]) => {
      const failures: UploadState['failures'] = [];
      patch({ upload: { current: null, failures } });
      const id = await ensureEnvelope(files[0]?.name.replace(/\.pdf$/i, ''));
      for (const [i, file] of files.entries()) {
        patch({ upload: { current: { name: file.name, n: i + 1, of: files.length }, failures: [...failures] } });
        try {
          const document = await draftApi.uploadDocument(id, file);
          patch((d) => ({
            documents: [...d.documents, document],
            fields: { ...d.fields, [document.document_id]: [] },
          }));
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          failures.push({ name: file.name, error });
        }
      }
      patch({ upload: { current: null, failures } });
    },
    [ensureEnvelope, patch],
  );

  const removeDocument = useCallback(
    async (documentId: string) => {
      await draftApi.removeDocument(ref.current.id!, documentId);
      patch((d) => ({ documents: d.documents.filter((x) => x.document_id !== documentId) }));
    },
    [patch],
  );

  const addRecipient = useCallback(
    async (input: RecipientInput, together: boolean) => {
      const id = await ensureEnvelope();
      await saveDetails(id);
      const { recipients, details } = ref.current;
      const last = Math.max(0, ...recipients.map((r) => r.sequence));
      const sequence = details.routing_order === 'sequential' ? (together && last > 0 ? last : last + 1) : undefined;
      const recipient = await draftApi.addRecipient(id, sequence === undefined ? input : { ...input, sequence });
      patch((d) => ({ recipients: [...d.recipients, recipient] }));
    },
    [ensureEnvelope, saveDetails, patch],
  );

  const updateRecipient = useCallback(
    async (recipientId: string, input: RecipientInput) => {
      const recipient = await draftApi.patchRecipient(ref.current.id!, recipientId, input);
      patch((d) => ({ recipients: d.recipients.map((r) => (r.recipient_id === recipientId ? recipient : r)) }));
    },
    [patch],
  );

  const removeRecipient = useCallback(
    async (recipientId: string) => {
      await draftApi.removeRecipient(ref.current.id!, recipientId);
      patch((d) => ({
        recipients: d.recipients.filter((r) => r.recipient_id !== recipientId),
        fields: Object.fromEntries(
          Object.entries(d.fields).map(([doc, list]) => [doc, list.filter((f) => f.party !== recipientId)]),
        ),
      }));
    },
    [patch],
  );

  /** Writes new sequence numbers for the routing order, only where they changed. */
  const applySequences = useCallback(
    async (order: RecipientView[], sequences: number[]) => {
      const id = ref.current.id!;
      const updated = await Promise.all(
        order.map((r, i) =>
          r.sequence === sequences[i] ? r : draftApi.patchRecipient(id, r.recipient_id, { sequence: sequences[i]! }),
        ),
      );
      patch({ recipients: updated });
    },
    [patch],
  );

  const moveRecipient = useCallback(
    async (from: number, to: number) => {
      const { order, sequences } = moved(inRoutingOrder(ref.current.recipients), from, to);
      await applySequences(order, sequences);
    },
    [applySequences],
  );

  const groupRecipient = useCallback(
    async (index: number, together: boolean) => {
      const order = inRoutingOrder(ref.current.recipients);
      await applySequences(order, regrouped(order, index, together));
    },
    [applySequences],
  );

  /** Saves details and every document's fields; a refused layout marks the fields and throws LayoutRefused. */
  const save = useCallback(async (): Promise<string> => {
    const id = await ensureEnvelope();
    await saveDetails(id);
    const fieldErrors: Record<string, ReadonlyMap<string, string>> = {};
    const generalErrors: string[] = [];
    for (const document of ref.current.documents) {
      const fields = ref.current.fields[document.document_id] ?? [];
      try {
        await draftApi.saveFields(id, document.document_id, fields);
      } catch (error) {
        const mapped = draftApi.layoutErrors(error, fields);
        if (!mapped) throw error;
        fieldErrors[document.document_id] = mapped.byField;
        generalErrors.push(...mapped.general.map((m) => `${document.filename}: ${m}`));
      }
    }
    patch({ fieldErrors, generalErrors });
    if (Object.keys(fieldErrors).length > 0) throw new LayoutRefused();
    unsaved.current = false;
    return id;
  }, [ensureEnvelope, saveDetails, patch]);

  return {
    draft,
    setDetails,
    setFields,
    uploadFiles,
    removeDocument,
    addRecipient,
    updateRecipient,
    removeRecipient,
    moveRecipient,
    groupRecipient,
    save,
  };
}
