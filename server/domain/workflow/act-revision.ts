/**
 * The sealed revision of an act that writes into the documents (an electronic signature, an approval with
 * values): per document, the recipient's values and a PAdES signature by the installation's seal (B-T when a
 * TSA is configured) go into ONE incremental revision, judged by the revision guard before it is stored.
 * Parallel recipients may act at the same time on the same document: the revisions are built on the bytes
 * read and committed, with the act itself, only if those are still the current ones (otherwise rebuilt on
 * the new bytes).
 */
import { MoharError } from '../../../common/errors.js';
import type { FieldImage, PadesTarget, SignatureAppearance } from '../../../pdf/index.js';
import type { FieldsTable } from '../../storage/schema.js';
import { sealFor, type Context } from '../context.js';
import { iso } from '../time.js';
import { readRevision, storeRevision } from '../documents/recent-revisions.js';
import { FIELD_TYPES } from '../../../common/fields.js';
import { commitAct, type ActRecord } from './commit-act.js';
import { pdfFieldName } from './field-names.js';
import type { FilledValues } from './field-values.js';
import { assertOwnRevisionOffLoop } from './revision-guard.js';
import { signPadesOffLoop } from './sign-off-loop.js';

export interface ActRevisionPlan {
  /** Names the act in the guard's message ("electronic signature", "approval"). */
  readonly act: string;
  /** document_revisions.act of the new revisions. */
  readonly revisionAct: 'signed' | 'approved';
  /** The recipient's own fields. */
  readonly fields: readonly FieldsTable[];
  readonly values: FilledValues;
  /** The signing time claimed (/M), the same moment the act's date values were taken at. */
  readonly signingTime: Date;
  /** The sealed signature's /Name and /Reason. */
  readonly name: string;
  readonly reason: string;
  /** The appearance of the recipient's Signature field, when they have one (signers). */
  readonly appearance?: SignatureAppearance;
  /** A picture shown in some of the recipient's text fields (their drawn initials), by PDF field name. */
  readonly imageFields?: FieldImage;
}

/** What the act records about itself, knowing the PAdES level its revisions were sealed at. */
export type RecordAct = (level: PadesTarget) => ActRecord;

const ATTEMPTS = 3;

/** A document moved under this act (a parallel act committed first): thrown to roll the whole commit back. */
class StaleBytes extends Error {}

interface Built {
  readonly documentId: string;
  readonly before: string;
  readonly after: string;
  readonly size: number;
}

/** One sealed revision per document that has the recipient's Signature field or a value to write. */
async function buildRevisions(
  ctx: Context,
  envelopeId: string,
  plan: ActRevisionPlan,
  level: PadesTarget,
): Promise<Built[]> {
  const documentIds = [...new Set(plan.fields.map((f) => f.document_id))];
  if (documentIds.length === 0) return [];
  const { mode } = await ctx.db
    .selectFrom('envelopes')
    .select('mode')
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  const seal = await sealFor(ctx, mode);
  const current = await ctx.db
    .selectFrom('envelope_documents')
    .select(['document_id', 'current_sha256'])
    .where('envelope_id', '=', envelopeId)
    .where('document_id', 'in', documentIds)
    .orderBy('position')
    .execute();
  const built: Built[] = [];
  for (const doc of current) {
    const docFields = plan.fields.filter((f) => f.document_id === doc.document_id);
    const formValues = Object.fromEntries(
      docFields
        .filter((f) => f.field_type !== FIELD_TYPES.SIGNATURE)
        .map((f) => [pdfFieldName(f), plan.values.pdf[pdfFieldName(f)]!])
        .filter(([, v]) => v !== undefined),
    );
    const names = new Set(docFields.map(pdfFieldName));
    const pictured = plan.imageFields?.fields.filter((n) => names.has(n)) ?? [];
    const signatureField = docFields.find((f) => f.field_type === FIELD_TYPES.SIGNATURE);
    if (!signatureField && Object.keys(formValues).length === 0 && pictured.length === 0) continue;
    const bytes = await readRevision(ctx, doc.current_sha256!);
    // The PDF work (values, pictures, appearance, revision) runs in the worker pool; only the seal signs here.
    const signed = await signPadesOffLoop(ctx, bytes, seal, {
      level,
      // A Signature field carries its own /Lock (prepareForm: this recipient's other fields); an invisible
      // signature (an approver's values) locks the fields it fills itself.
      ...(signatureField
        ? { field: { name: pdfFieldName(signatureField) } }
        : {
            field: { invisible: true },
            lock: { action: 'Include', fields: [...Object.keys(formValues), ...pictured] },
          }),
      formValues,
      // pyHanko 0.25.1 keeps a lock only over appearances written in the locking revision (lock-appearances.ts).
      reissueLockedAppearances: true,
      ...(pictured.length > 0 ? { imageFields: { ...plan.imageFields!, fields: pictured } } : {}),
      signingTime: plan.signingTime,
      name: plan.name,
      reason: plan.reason,
      ...(plan.appearance ? { appearance: plan.appearance } : {}),
      ...(ctx.config.tsaUrl ? { tsaUrl: ctx.config.tsaUrl, transport: ctx.transports.timestamps } : {}),
    });
    await assertOwnRevisionOffLoop(ctx.pdf, plan.act, bytes, signed.bytes, {
      signingField: signed.fieldName,
      fillableFields: [...Object.keys(formValues), ...pictured, ...signed.reissuedFields],
      // An approval's invisible signature locks the fields it fills; its new field has no /Lock to stay within.
      ...(signatureField ? {} : { allowAnyLock: true }),
    });
    built.push({
      documentId: doc.document_id,
      before: doc.current_sha256!,
      after: await storeRevision(ctx, signed.bytes),
      size: signed.bytes.length,
    });
  }
  return built;
}

/**
 * Writes the act's sealed revisions and records the act in the same commit (commitAct); retried on fresh bytes
 * when a parallel act moved a document meanwhile. Returns true when every actor has finished.
 */
export async function commitActRevisions(
  ctx: Context,
  envelopeId: string,
  recipientId: string,
  plan: ActRevisionPlan,
  record: RecordAct,
): Promise<boolean> {
  const level: PadesTarget = ctx.config.tsaUrl ? 'B-T' : 'B-B';
  for (let attempt = 1; ; attempt++) {
    const revisions = await buildRevisions(ctx, envelopeId, plan, level);
    const outcome = await commitAct(ctx, {
      envelopeId,
      recipientId,
      documents: revisions.map((r) => ({
        documentId: r.documentId,
        from: r.before,
        revisions: [{ sha256: r.after, size: r.size, act: plan.revisionAct }],
      })),
      values: plan.values.stored,
      record: record(level),
      at: iso(ctx.now()),
      stale: () => new StaleBytes(),
    }).catch((error: unknown) => {
      if (error instanceof StaleBytes) return 'stale' as const;
      throw error;
    });
    if (outcome !== 'stale') return outcome;
    if (attempt >= ATTEMPTS) throw new MoharError('concurrent_update', 'the document changed while acting; try again');
  }
}
