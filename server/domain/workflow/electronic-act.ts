/**
 * The electronic signature act: the signer's values and their drawn or typed signature go into ONE
 * incremental revision together with a PAdES signature on their Signature field, made with the
 * installation's seal key (B-T when a TSA is configured). Parallel signers may act at the same time on
 * the same document: the revision is built on the bytes read, and committed only if those are still the
 * current ones (otherwise it is rebuilt on the new bytes).
 */
import { MoharError } from '../../../common/errors.js';
import type { PadesTarget } from '../../../pdf/sign/pades.js';
import { fetchTransport } from '../../net/http-transport.js';
import { iso, type Context } from '../context.js';
import { FIELD_TYPES } from '../envelopes/field-types.js';
import { loadActors, recordAct, type ClientInfo } from './act-context.js';
import { checkActionForRole, type DecisionResult } from './decide-act.js';
import { pdfFieldName } from './field-names.js';
import { signPadesOffLoop } from './sign-off-loop.js';
import { assertOwnRevisionOffLoop } from './revision-guard.js';
import { fillValues } from './field-values.js';
import type { ResolvedSession } from './sessions.js';
import { readRevision, storeRevision } from '../documents/recent-revisions.js';

export interface SignInput {
  consent?: boolean;
  fields?: Record<string, string | boolean>;
  signature?: { kind: 'drawn' | 'typed' | 'uploaded'; image_png?: string; text?: string };
}

const ATTEMPTS = 3;

/**
 * The image shown in the signature's appearance: required for drawn and uploaded signatures; a typed one may
 * bring the text as the page rendered it (in its handwriting font), else the text itself is shown.
 */
function signatureImage(input: SignInput): Uint8Array | undefined {
  const signature = input.signature;
  if (!signature || (signature.kind === 'typed' && signature.image_png === undefined)) return undefined;
  const png = Buffer.from(signature.image_png ?? '', 'base64');
  if (png.length < 8 || png.readUInt32BE(0) !== 0x89504e47) throw new MoharError('image_invalid', `signature.image_png must be a base64 PNG of the ${signature.kind} signature`);
  return png;
}

export async function signElectronically(ctx: Context, session: ResolvedSession, input: SignInput, client: ClientInfo): Promise<DecisionResult> {
  if (input.consent !== true) throw new MoharError('consent_required', 'accept the consent statement to sign');
  const first = await loadActors(ctx.db, session.envelopeId, session.recipientId);
  checkActionForRole('sign', first.recipient.role);
  if (first.recipient.signature_method === 'dsc') {
    throw new MoharError('dsc_signing_required', 'a USB DSC signer signs with the token on their own machine: GET documents/{id}/prepared, sign it, then PUT documents/{id}/signed');
  }
  if (first.recipient.signature_method !== 'electronic') throw new MoharError('aadhaar_not_configured', 'Aadhaar eSign is not configured on this server');
  if (!input.signature || (input.signature.kind === 'typed' && !input.signature.text?.trim())) {
    throw new MoharError('validation_failed', 'draw or type your signature', { errors: [{ path: '/signature', message: 'required to sign' }] });
  }
  const image = signatureImage(input);
  const fields = await ctx.db.selectFrom('fields').selectAll().where('envelope_id', '=', session.envelopeId).where('recipient_id', '=', session.recipientId).orderBy('position').execute();
  const now = ctx.now();
  const values = fillValues(fields, first.recipient, input.fields ?? {}, iso(now).slice(0, 10));
  const seal = await ctx.seal();
  const level: PadesTarget = ctx.config.tsaUrl ? 'B-T' : 'B-B';
  const documentIds = [...new Set(fields.map((f) => f.document_id))];

  for (let attempt = 1; ; attempt++) {
    const current = await ctx.db.selectFrom('envelope_documents').select(['document_id', 'current_sha256']).where('envelope_id', '=', session.envelopeId).where('document_id', 'in', documentIds).execute();
    const revisions: { documentId: string; before: string; after: string; size: number }[] = [];
    for (const doc of current) {
      const bytes = await readRevision(ctx, doc.current_sha256!);
      const docFields = fields.filter((f) => f.document_id === doc.document_id);
      const formValues = Object.fromEntries(docFields.filter((f) => f.field_type !== FIELD_TYPES.SIGNATURE).map((f) => [pdfFieldName(f), values.pdf[pdfFieldName(f)]!]).filter(([, v]) => v !== undefined));
      const signatureField = docFields.find((f) => f.field_type === FIELD_TYPES.SIGNATURE);
      if (!signatureField && Object.keys(formValues).length === 0) continue;
      // The PDF work (values, image, revision) runs in the worker pool; only the seal signs here.
      const signed = await signPadesOffLoop(ctx, bytes, seal, {
        level,
        field: signatureField ? { name: pdfFieldName(signatureField) } : { invisible: true },
        formValues,
        signingTime: now,
        name: first.recipient.name,
        reason: `Signed electronically by ${first.recipient.name} <${first.recipient.email}>`,
        appearance: image ? { image, lines: [first.recipient.name, iso(now).slice(0, 10)] } : { lines: [input.signature.text ?? first.recipient.name, `${first.recipient.name}, ${iso(now).slice(0, 10)}`] },
        ...(ctx.config.tsaUrl ? { tsaUrl: ctx.config.tsaUrl, transport: fetchTransport() } : {}),
      });
      await assertOwnRevisionOffLoop(ctx.pdf, 'electronic signature', bytes, signed.bytes, { signingField: signed.fieldName, fillableFields: Object.keys(formValues) });
      revisions.push({ documentId: doc.document_id, before: doc.current_sha256!, after: await storeRevision(ctx, signed.bytes), size: signed.bytes.length });
    }
    const at = iso(ctx.now());
    const outcome = await ctx.db.transaction().execute(async (trx) => {
      const { envelope, recipient, recipients } = await loadActors(trx, session.envelopeId, session.recipientId);
      for (const r of revisions) {
        const moved = await trx.updateTable('envelope_documents').set({ current_sha256: r.after }).where('envelope_id', '=', envelope.id).where('document_id', '=', r.documentId).where('current_sha256', '=', r.before).executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) return 'stale' as const;
        const { seq } = await trx.selectFrom('document_revisions').select((eb) => eb.fn.max('seq').as('seq')).where('envelope_id', '=', envelope.id).where('document_id', '=', r.documentId).executeTakeFirstOrThrow();
        await trx.insertInto('document_revisions').values({ envelope_id: envelope.id, document_id: r.documentId, seq: Number(seq ?? 0) + 1, sha256: r.after, size: r.size, act: 'signed', recipient_id: recipient.id, created_at: at }).execute();
      }
      for (const [fieldId, value] of values.stored) await trx.updateTable('fields').set({ value }).where('id', '=', fieldId).execute();
      return recordAct(ctx, trx, envelope, recipients, recipient, 'signed', { method: 'electronic', consent_at: at, ip: client.ip, user_agent: client.userAgent, signature: input.signature!.kind, ...(input.signature!.kind === 'typed' ? { signature_text: input.signature!.text } : {}), pades_level: level }, at);
    });
    if (outcome !== 'stale') return { status: 'signed', envelopeFinished: outcome };
    if (attempt >= ATTEMPTS) throw new MoharError('concurrent_update', 'the document changed while signing; try again');
  }
}
