/**
 * Completion, after the last required act: the final bytes of every document are fixed (SHA-256 and PAdES
 * level recorded), cc recipients are done, and envelope.completed is written with where to download.
 * Long-term validation (DSS + document timestamp when a TSA is configured) is not done yet: see the
 * workflow issue's note.
 */
import { verifyPdf, type PadesLevel } from '../../../pdf/verify/index.js';
import { iso, type Context } from '../context.js';
import { recordEvent } from './events.js';
import { envelopeSummary } from './summaries.js';

const LEVELS: readonly PadesLevel[] = ['B-B', 'B-T', 'B-LT', 'B-LTA'];

/** The weakest level among the documents' signatures (null when none is a PAdES signature). */
function lowestLevel(levels: (PadesLevel | null)[]): PadesLevel | null {
  const known = levels.filter((l): l is PadesLevel => l !== null);
  if (known.length === 0) return null;
  return known.reduce((a, b) => (LEVELS.indexOf(a) <= LEVELS.indexOf(b) ? a : b));
}

export async function completeEnvelope(ctx: Context, envelopeId: string): Promise<void> {
  const documents = await ctx.db.selectFrom('envelope_documents').select(['document_id', 'current_sha256']).where('envelope_id', '=', envelopeId).orderBy('position').execute();
  const levels: (PadesLevel | null)[] = [];
  for (const document of documents) {
    const report = verifyPdf(await ctx.blobs.get(document.current_sha256!));
    levels.push(...report.signatures.filter((s) => s.kind === 'signature').map((s) => s.padesLevel));
  }
  const at = iso(ctx.now());
  await ctx.db.transaction().execute(async (trx) => {
    const envelope = await trx.selectFrom('envelopes').selectAll().where('id', '=', envelopeId).executeTakeFirstOrThrow();
    const moved = await trx.updateTable('envelopes').set({ status: 'completed', completed_at: at, updated_at: at, pades_level: lowestLevel(levels) }).where('id', '=', envelopeId).where('status', '=', 'sent').executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return;
    await trx.updateTable('recipients').set({ status: 'completed' }).where('envelope_id', '=', envelopeId).where('role', '=', 'cc').execute();
    const base = `${ctx.config.baseUrl}/backend/api/v1/envelopes/${envelopeId}/documents`;
    await recordEvent(trx, envelope.account_id, envelopeId, 'envelope.completed', {
      envelope: envelopeSummary({ ...envelope, status: 'completed' }),
      documents: documents.map((d) => ({ document_id: d.document_id, sha256: d.current_sha256, download_url: `${base}/${d.document_id}/download` })),
      pades_level: lowestLevel(levels),
    }, at);
  });
}
