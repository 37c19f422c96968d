/**
 * An envelope's field rows, wherever they are.
 *
 * A draft instantiated from a template keeps its layout **by reference** to its template version (issue 12):
 * `envelopes.pending_layout` holds the recipients that fill the version's roles and the values given at
 * instantiation, and the draft has no rows in `fields`. Its rows are the version's planned fields with those
 * recipients and values and with ids made from the envelope's id (layoutFieldId), so they are the same rows
 * every time they are made. Why: an instantiation then writes one envelope row instead of one row per field
 * (the version never changes, instantiable.ts), and the rows are written only when something needs them as
 * rows: the first change to the draft's layout or recipients (materializeLayout) or its sending.
 *
 * Invariant: an envelope with a pending_layout has no rows in `fields`.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isPostgres } from '../../storage/migrations/dialect.js';
import type { Database, FieldsTable } from '../../storage/schema.js';
import { loadInstantiable, type Instantiable } from '../templates/instantiable.js';

/** What pending_layout holds. */
export interface PendingLayout {
  /** The recipient that fills each of the version's roles, in the roles' order. */
  readonly recipients: readonly string[];
  /** The values given at instantiation, by field_key. */
  readonly values: Readonly<Record<string, string>>;
}

export function pendingLayoutJson(layout: PendingLayout): string {
  return JSON.stringify({ recipients: layout.recipients, values: layout.values });
}

/**
 * The id of the envelope's field number `index` in a layout by reference: a UUID shaped as version 7 with the
 * envelope's time, then bits of the envelope id's SHA-256 (`digest`), then the index. Unique within the
 * envelope by the index and across envelopes by the time and 44 bits of the digest; a clash would be a
 * primary-key error when the rows are written, never a silent merge.
 */
export function layoutFieldId(envelopeId: string, digest: string, index: number): string {
  const time = envelopeId.slice(0, 13); // "tttttttt-tttt"
  const tail = index.toString(16).padStart(8, '0');
  return `${time}-7${digest.slice(0, 3)}-${(0x8 | (parseInt(digest[3]!, 16) & 0x3)).toString(16)}${digest.slice(4, 7)}-${digest.slice(7, 11)}${tail}`;
}

/** The field rows a layout by reference stands for, in the version's order. */
export function layoutRows(envelopeId: string, loaded: Instantiable, layout: PendingLayout): FieldsTable[] {
  const digest = createHash('sha256').update(envelopeId).digest('hex');
  return loaded.fields.map((planned, index) => {
    const key = planned.fieldKey;
    const given = key !== null && Object.hasOwn(layout.values, key) ? layout.values[key]! : undefined;
    return {
      id: layoutFieldId(envelopeId, digest, index),
      envelope_id: envelopeId,
      document_id: planned.documentId,
      recipient_id: layout.recipients[planned.roleIndex]!,
      ...planned.row,
      ...(given === undefined ? {} : { value: given }),
    };
  });
}

/**
 * The envelope's field rows ordered by position, as `SELECT * FROM fields WHERE envelope_id = ? ORDER BY
 * position` gives them: its rows, or the rows its layout by reference stands for.
 */
export async function envelopeFieldRows(db: Kysely<Database>, envelopeId: string): Promise<FieldsTable[]> {
  const rows = await db
    .selectFrom('fields')
    .selectAll()
    .where('envelope_id', '=', envelopeId)
    .orderBy('position')
    .execute();
  // Only an envelope without rows can have a layout by reference.
  if (rows.length > 0) return rows;
  const reference = await referenceOf(db, envelopeId, false);
  return reference ? reference.sort((a, b) => a.position - b.position) : [];
}

/**
 * Writes a layout by reference as rows, in the caller's transaction, before the draft's layout or recipients
 * change. Does nothing for an envelope without one. On PostgreSQL the envelope row is locked first, so of two
 * concurrent changes one writes the rows and the other then finds them written.
 */
export async function materializeLayout(trx: Kysely<Database>, envelopeId: string): Promise<void> {
  const reference = await referenceOf(trx, envelopeId, true);
  if (reference) await writeLayoutRows(trx, envelopeId, reference);
}

/** The rows of a layout by reference are written and the reference dropped (also by sendEnvelope, in its commit). */
export async function writeLayoutRows(
  trx: Kysely<Database>,
  envelopeId: string,
  rows: readonly FieldsTable[],
): Promise<void> {
  if (rows.length > 0) {
    await trx
      .insertInto('fields')
      .values([...rows])
      .execute();
  }
  await trx.updateTable('envelopes').set({ pending_layout: null }).where('id', '=', envelopeId).execute();
}

/** The rows of the envelope's layout by reference; null when it has none. */
async function referenceOf(db: Kysely<Database>, envelopeId: string, lock: boolean): Promise<FieldsTable[] | null> {
  let query = db
    .selectFrom('envelopes')
    .select(['account_id', 'template_id', 'template_version', 'pending_layout'])
    .where('id', '=', envelopeId);
  if (lock && isPostgres(db as unknown as Kysely<unknown>)) query = query.forUpdate();
  const envelope = await query.executeTakeFirst();
  const json = envelope?.pending_layout;
  if (!envelope || json === null || json === undefined) return null;
  if (envelope.template_id === null || envelope.template_id === undefined || envelope.template_version == null) {
    throw new Error(`envelope ${envelopeId} has a layout by reference but no template version`);
  }
  const loaded = await loadInstantiable(db, envelope.account_id, envelope.template_id, envelope.template_version);
  return layoutRows(envelopeId, loaded, JSON.parse(json) as PendingLayout);
}
