/**
 * Completion, after the last required act, in two idempotent steps (the `envelope.complete` job retries
 * whichever has not happened):
 *  1. the final bytes of every document are fixed (SHA-256 and PAdES level recorded), cc recipients are
 *     done, envelope.completed is written with where to download, and the completion mail (documents
 *     attached) is queued for every recipient, all in one transaction;
 *  2. the certificate of completion: a separate PDF of the audit trail, sealed, stored content-addressed.
 * Step 1 first appends to every document the completion lock (completion-seal.ts: the seal's approval signature
 * locking every field no signature locks yet, revision act 'sealed'), then, with a TSA configured, long-term
 * validation data and a document timestamp (B-LT, B-LTA; see archive.ts); a TSA that is down fails the step, and
 * the job retries it.
 * Nothing is stored as current until the step's transaction commits, so a retry builds the revisions afresh.
 */
import { loadCertificateInput, appendAudit } from '../../audit/index.js';
import { createCertificateOffLoop } from './certificate-off-loop.js';
import { appendRevisions } from '../documents/append-revisions.js';
import { readRevision, storeRevision } from '../documents/recent-revisions.js';
import type { PadesLevel } from '../../../pdf/index.js';
import { API_BASE } from '../../../common/api-paths.js';
import type { EnvelopesTable, EnvelopeStatus } from '../../storage/schema.js';
import { sealFor, type Context } from '../context.js';
import { iso } from '../time.js';
import { recordEvent } from './events.js';
import { mailCompletion } from './notify.js';
import { envelopeSummary } from './summaries.js';
import { archiveDocument } from './archive.js';
import { sealCompletion } from './completion-seal.js';
import { assertOwnRevision } from './revision-guard.js';
import { dscValidationRevisions, storedDscValidationData } from '../trust/dsc-ltv.js';

const LEVELS: readonly PadesLevel[] = ['B-B', 'B-T', 'B-LT', 'B-LTA'];

/** The weakest level among the documents' signatures (null when none is a PAdES signature). */
function lowestLevel(levels: (PadesLevel | null)[]): PadesLevel | null {
  const known = levels.filter((l): l is PadesLevel => l !== null);
  if (known.length === 0) return null;
  return known.reduce((a, b) => (LEVELS.indexOf(a) <= LEVELS.indexOf(b) ? a : b));
}

/** Both steps: what the envelope.complete job runs. */
export async function completeEnvelope(ctx: Context, envelopeId: string): Promise<void> {
  const state = await ctx.db
    .selectFrom('envelopes')
    .select(['id', 'status', 'mode'])
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  await finalizeDocuments(ctx, state);
  await issueCertificate(ctx, envelopeId);
}

/** The envelope as step 1 starts from it. */
export type EnvelopeToFinalize = Pick<EnvelopesTable, 'id' | 'status' | 'mode'>;

/**
 * The PAdES level each signer's act reached, recorded with the act (no re-verification of the PDF). After
 * long-term validation a B-T signature becomes B-LTA; B-B stays B-B (there is no timestamp to build on).
 */
async function signatureLevels(
  ctx: Context,
  envelopeId: string,
  archived: 'none' | 'dss' | 'dss+timestamp',
): Promise<(PadesLevel | null)[]> {
  const acts = await ctx.db
    .selectFrom('recipients')
    .select('act_details')
    .where('envelope_id', '=', envelopeId)
    .where('status', '=', 'signed')
    .execute();
  return acts.map((a) => {
    const level = (JSON.parse(a.act_details ?? '{}') as { pades_level?: PadesLevel | null }).pades_level ?? null;
    if (level !== 'B-T' || archived === 'none') return level;
    return archived === 'dss' ? 'B-LT' : 'B-LTA';
  });
}

/**
 * The documents to finalize with their current bytes, and the envelope's status read in the same statement. The
 * caller read the status before, in a statement of its own: the act and the job both try completion, and the one
 * that commits first moves the status and the documents' bytes together. A path that read `sent` just before that
 * commit and the bytes just after it would seal bytes that carry the completion lock already (field_name_taken). One
 * statement reads one snapshot (PostgreSQL's READ COMMITTED, SQLite alike), so bytes read with `sent` are the bytes
 * before completion, and bytes read after it come with `completed`.
 */
function documentsToFinalize(ctx: Context, envelopeId: string) {
  return ctx.db
    .selectFrom('envelope_documents')
    .innerJoin('documents', 'documents.id', 'envelope_documents.document_id')
    .innerJoin('envelopes', 'envelopes.id', 'envelope_documents.envelope_id')
    .select([
      'envelope_documents.document_id',
      'envelope_documents.current_sha256',
      'documents.filename',
      'envelopes.status as envelope_status',
    ])
    .where('envelope_documents.envelope_id', '=', envelopeId)
    .orderBy('envelope_documents.position')
    .execute();
}

/**
 * Step 1 alone, on the envelope as its caller read it: what a signer act's request tries at once (settle-act.ts;
 * the certificate follows in the job). Returns the status it leaves the envelope in: `completed` when this call
 * completed it, else the status that kept it from completing.
 */
export async function finalizeDocuments(ctx: Context, state: EnvelopeToFinalize): Promise<EnvelopeStatus> {
  if (state.status !== 'sent') return state.status; // done already (a retried job), or stopped
  const envelopeId = state.id;
  const documents = await documentsToFinalize(ctx, envelopeId);
  const moved = documents.find((d) => d.envelope_status !== 'sent');
  if (moved) return moved.envelope_status; // completed meanwhile by the other path (act or job), or stopped
  const sizes = new Map<string, number>();
  const appendedTo = new Map<string, { from: string; revisions: { sha256: string; size: number; act: string }[] }>();
  // USB DSC acts keep their chain and OCSP/CRL answers: they go into the /DSS, with or without a TSA.
  const dscData = await storedDscValidationData(ctx.db, envelopeId);
  let ltvAppended = false;
  for (const document of documents) {
    let bytes = await readRevision(ctx, document.current_sha256!);
    const revisions: { sha256: string; size: number; act: string }[] = [];
    const keep = async (revision: { bytes: Buffer; act: string }) => {
      revisions.push({
        sha256: await storeRevision(ctx, revision.bytes),
        size: revision.bytes.length,
        act: revision.act,
      });
      bytes = revision.bytes;
    };
    // The completion lock first (judged inside): the /DSS below then carries the seal's chain as well.
    const sealed = await sealCompletion(ctx, bytes, state.mode, ctx.now());
    if (sealed) await keep(sealed);
    const archived = ctx.config.tsaUrl
      ? await archiveDocument(ctx, bytes, ctx.config.tsaUrl, dscData ?? undefined)
      : dscData
        ? dscValidationRevisions(bytes, dscData)
        : [];
    for (const revision of archived) {
      assertOwnRevision(`completion (${revision.act})`, bytes, revision.bytes, { allowLtv: true });
      await keep(revision);
      ltvAppended = true;
    }
    if (revisions.length > 0) appendedTo.set(document.document_id, { from: document.current_sha256!, revisions });
    document.current_sha256 = revisions.at(-1)?.sha256 ?? document.current_sha256;
    sizes.set(document.document_id, bytes.length);
  }
  const level = lowestLevel(
    await signatureLevels(ctx, envelopeId, !ltvAppended ? 'none' : ctx.config.tsaUrl ? 'dss+timestamp' : 'dss'),
  );
  const at = iso(ctx.now());
  return ctx.db.transaction().execute(async (trx): Promise<EnvelopeStatus> => {
    // Moved and read in one statement: the row the event and the mails describe is the one completed.
    const envelope = await trx
      .updateTable('envelopes')
      .set({ status: 'completed', completed_at: at, updated_at: at, pades_level: level })
      .where('id', '=', envelopeId)
      .where('status', '=', 'sent')
      .returningAll()
      .executeTakeFirst();
    if (!envelope) {
      // Something moved it first (the job, a void, an expiry): what it is now.
      const current = await trx
        .selectFrom('envelopes')
        .select('status')
        .where('id', '=', envelopeId)
        .executeTakeFirstOrThrow();
      return current.status;
    }
    for (const [documentId, { from, revisions }] of appendedTo) {
      const appended = await appendRevisions(trx, { envelopeId, documentId, from, revisions, recipientId: null, at });
      if (!appended) throw new Error(`document ${documentId} changed during completion`);
    }
    await trx
      .updateTable('recipients')
      .set({ status: 'completed' })
      .where('envelope_id', '=', envelopeId)
      .where('role', '=', 'cc')
      .execute();
    const base = `${ctx.config.baseUrl}${API_BASE}/envelopes/${envelopeId}/documents`;
    const finals = documents.map((d) => ({
      document_id: d.document_id,
      sha256: d.current_sha256,
      download_url: `${base}/${d.document_id}/download`,
    }));
    await recordEvent(
      trx,
      envelope.account_id,
      envelopeId,
      'envelope.completed',
      { envelope: envelopeSummary(envelope), documents: finals, pades_level: level },
      at,
      {
        type: 'system',
        details: { documents: finals.map(({ document_id, sha256 }) => ({ document_id, sha256 })), pades_level: level },
      },
    );
    const recipients = await trx
      .selectFrom('recipients')
      .selectAll()
      .where('envelope_id', '=', envelopeId)
      .orderBy('position')
      .execute();
    const attachments = documents.map((d) => ({
      filename: d.filename,
      content_type: 'application/pdf',
      sha256: d.current_sha256!,
      size: sizes.get(d.document_id)!,
    }));
    await mailCompletion(trx, ctx, envelope, recipients, attachments);
    return 'completed';
  });
}

async function issueCertificate(ctx: Context, envelopeId: string): Promise<void> {
  const envelope = await ctx.db
    .selectFrom('envelopes')
    .select(['status', 'certificate_sha256', 'account_id', 'mode'])
    .where('id', '=', envelopeId)
    .executeTakeFirstOrThrow();
  if (envelope.status !== 'completed' || envelope.certificate_sha256 !== null) return;
  const input = await loadCertificateInput(ctx.db, envelopeId);
  const certificate = await createCertificateOffLoop(ctx, input, await sealFor(ctx, envelope.mode), {
    signingTime: ctx.now(),
    ...(ctx.config.tsaUrl ? { tsaUrl: ctx.config.tsaUrl, transport: ctx.transports.timestamps } : {}),
  });
  const sha256 = await ctx.blobs.put(certificate.bytes);
  await ctx.db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('envelopes')
      .set({ certificate_sha256: sha256 })
      .where('id', '=', envelopeId)
      .where('certificate_sha256', 'is', null)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 1) {
      await appendAudit(trx, {
        envelopeId,
        accountId: envelope.account_id,
        actorType: 'system',
        action: 'certificate.issued',
        details: { sha256 },
        at: iso(ctx.now()),
      });
    }
  });
}
