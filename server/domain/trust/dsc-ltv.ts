/**
 * Long-term validation for USB DSC signatures at completion. The chain, OCSP answers and CRLs found when
 * the upload was judged (dsc-trust.ts, kept with the act) go into the document's /DSS: with a TSA the
 * archive step (archive.ts) reuses them beside what it fetches then; without one they are appended alone,
 * so a DSC signature that carries its own signature timestamp reaches B-LT even when the installation has
 * no TSA. (A B-B signature with a /DSS stays B-B in ETSI's terms: B-LT builds on B-T.)
 */
import type { Kysely } from 'kysely';
import { appendDss } from '../../../pdf/index.js';
import type { Database } from '../../storage/schema.js';
import type { ArchivedRevision } from '../workflow/archive.js';

export interface StoredValidationData {
  readonly certs: Uint8Array[];
  readonly ocsps: Uint8Array[];
  readonly crls: Uint8Array[];
}

interface Stored {
  validation_data?: { certs?: string[]; ocsps?: string[]; crls?: string[] };
}

/** Validation data kept by the envelope's DSC acts (null when none kept any). */
export async function storedDscValidationData(
  db: Kysely<Database>,
  envelopeId: string,
): Promise<StoredValidationData | null> {
  const acts = await db
    .selectFrom('recipients')
    .select('act_details')
    .where('envelope_id', '=', envelopeId)
    .where('status', '=', 'signed')
    .where('signature_method', '=', 'dsc')
    .execute();
  const out: StoredValidationData = { certs: [], ocsps: [], crls: [] };
  const der = (list: string[] | undefined) => (list ?? []).map((b) => new Uint8Array(Buffer.from(b, 'base64')));
  for (const act of acts) {
    const kept = (JSON.parse(act.act_details ?? '{}') as Stored).validation_data;
    if (!kept) continue;
    out.certs.push(...der(kept.certs));
    out.ocsps.push(...der(kept.ocsps));
    out.crls.push(...der(kept.crls));
  }
  return out.certs.length + out.ocsps.length + out.crls.length === 0 ? null : out;
}

/** The /DSS revision holding the DSC acts' validation data (no document timestamp: there is no TSA). */
export function dscValidationRevisions(bytes: Buffer, data: StoredValidationData): ArchivedRevision[] {
  return [{ bytes: appendDss(bytes, data).bytes, act: 'validation_data' }];
}
