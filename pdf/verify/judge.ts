/**
 * Judges one appended revision against what the act that produced it may change: `next` must be the
 * `prior` bytes exactly, then ONE incremental revision chained to the prior cross-reference data, whose
 * every changed object (diff.ts) the policy allows. A pure function over bytes with a JSON result, so
 * it can run in a worker thread.
 */
import { isMoharError } from '../../common/errors.js';
import { PdfReader } from '../document.js';
import { onlyWhitespace } from '../xref-repair.js';
import type { ChangedObject } from './change-class.js';
import { analyseRevision } from './diff.js';

export interface RevisionPolicy {
  /** the one signature field this revision may sign (fully qualified name); absent: no signing allowed */
  readonly signingField?: string;
  /** fully qualified names of existing non-signature fields whose values this revision may fill; absent: none */
  readonly fillableFields?: readonly string[];
  /** DSS / document timestamp additions allowed */
  readonly allowLtv?: boolean;
  /** /Info, XMP /Metadata and catalog /Version updates allowed (what signing tools write beside a signature) */
  readonly allowMetadata?: boolean;
  /**
   * The signature may lock any fields (FieldMDP), e.g. Mohar's own completion seal with /All; absent: it may lock
   * no more than its field's /Lock (see diff-locks.ts).
   */
  readonly allowAnyLock?: boolean;
  /**
   * The acting recipient's own fields (fully qualified names): its signature may lock these too, beyond its field's
   * /Lock. Token software may lock the signer's own fields (a USB DSC field has no /Lock); never anyone else's.
   */
  readonly ownFields?: readonly string[];
}

export interface RevisionJudgement {
  readonly accepted: boolean;
  readonly objects: readonly ChangedObject[];
  readonly offending: readonly ChangedObject[];
  readonly problem: string | null;
}

/** Whether the policy allows one changed object. */
export function allowedBy(policy: RevisionPolicy, object: ChangedObject): boolean {
  switch (object.class) {
    case 'structure':
      return true;
    case 'ltv':
      return policy.allowLtv === true;
    case 'metadata':
      return policy.allowMetadata === true;
    case 'signing':
      return policy.signingField !== undefined && object.field === policy.signingField;
    case 'form_filling':
      return object.field !== undefined && (policy.fillableFields ?? []).includes(object.field);
    default:
      return false;
  }
}

const refused = (
  problem: string,
  objects: readonly ChangedObject[] = [],
  offending: readonly ChangedObject[] = [],
): RevisionJudgement => ({ accepted: false, objects, offending, problem });

/** The shape of the appended bytes: exactly one revision, chained to the prior one. */
function shapeProblem(prior: Uint8Array, next: Uint8Array, before: PdfReader, after: PdfReader): string | null {
  const appended = after.revisions.filter((r) => r.eofOffset >= prior.length);
  if (appended.length !== 1) return `it must append exactly one revision; it appends ${appended.length}`;
  if (!onlyWhitespace(next.subarray(appended[0]!.end))) return 'bytes follow the end of the appended revision';
  if (after.xref.reconstructed) return 'the cross-reference data of the appended revision is damaged';
  if ((after.xref.startxref ?? -1) < prior.length) {
    return 'the appended revision points back into the earlier bytes for its cross-reference data';
  }
  if (after.trailer.get('Prev') !== before.xref.startxref) {
    return 'the appended revision does not chain to the previous cross-reference section (/Prev)';
  }
  return null;
}

function describeOffending(policy: RevisionPolicy, offending: readonly ChangedObject[]): string {
  const signed = [
    ...new Set(offending.filter((o) => o.class === 'signing' && o.field !== undefined).map((o) => `"${o.field}"`)),
  ];
  const mine =
    policy.signingField === undefined ? 'this act may sign no field' : `only "${policy.signingField}" may be signed`;
  const lead = signed.length > 0 ? `it signs ${signed.join(', ')} (${mine}); ` : '';
  const shown = offending.slice(0, 5).map((o) => (o.num === 0 ? o.reason : `object ${o.num}: ${o.reason}`));
  const more = offending.length > shown.length ? ` (and ${offending.length - shown.length} more)` : '';
  return `${lead}it changes what this act may not change: ${shown.join('; ')}${more}`;
}

/** `next` must be `prior` + exactly one incremental revision whose every change the policy allows. */
export function judgeAppendedRevision(prior: Uint8Array, next: Uint8Array, policy: RevisionPolicy): RevisionJudgement {
  if (
    next.length <= prior.length ||
    !Buffer.from(next.buffer, next.byteOffset, prior.length).equals(
      Buffer.from(prior.buffer, prior.byteOffset, prior.byteLength),
    )
  ) {
    return refused('it does not extend the earlier bytes exactly (earlier bytes changed, or nothing was appended)');
  }
  let before: PdfReader;
  let after: PdfReader;
  let objects: ChangedObject[];
  try {
    before = PdfReader.open(prior);
    after = PdfReader.open(next);
    const shape = shapeProblem(prior, next, before, after);
    if (shape) return refused(shape);
    objects = analyseRevision(before, after, {
      locksWithinFieldLock: policy.allowAnyLock !== true,
      lockableFields: policy.ownFields ?? [],
    });
  } catch (error) {
    if (!isMoharError(error)) throw error;
    return refused(`it cannot be read (${error.message})`);
  }
  const offending = objects.filter((o) => !allowedBy(policy, o));
  if (offending.length > 0) return refused(describeOffending(policy, offending), objects, offending);
  return { accepted: true, objects, offending: [], problem: null };
}
