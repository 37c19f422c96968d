/**
 * The electronic signature act: the signer's values and their drawn or typed signature go into ONE
 * incremental revision together with a PAdES signature on their Signature field, made with the
 * installation's seal key (act-revision.ts, shared with an approval that writes values).
 */
import { MoharError } from '../../../common/errors.js';
import type { ActInput } from '../../../common/signer-act.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import { loadActors, type ClientInfo } from './act-context.js';
import { commitActRevisions } from './act-revision.js';
import { checkActionForRole, type DecisionResult } from './decide-act.js';
import { fillValues } from './field-values.js';
import { pdfFieldName } from './field-names.js';
import { FIELD_TYPES, initialsOf } from '../../../common/fields.js';
import type { FieldsTable } from '../../storage/schema.js';
import type { ResolvedSession } from './sessions.js';

/**
 * The picture of a signature or of initials: required when drawn or uploaded; typed ones may bring the text
 * as the page rendered it (in its handwriting font), else the text itself is shown. Only the PNG signature is
 * checked here; decoding (and downscaling) happens in the PDF worker pool (pdf-tasks.ts prepareSignature).
 */
function pictureOf(
  what: 'signature' | 'initials',
  given: { kind: string; image_png?: string } | undefined,
): Uint8Array | undefined {
  if (!given || (given.kind === 'typed' && given.image_png === undefined)) return undefined;
  const png = Buffer.from(given.image_png ?? '', 'base64');
  if (png.length < 8 || png.readUInt32BE(0) !== 0x89504e47) {
    throw new MoharError('image_invalid', `${what}.image_png must be a base64 PNG of the ${given.kind} ${what}`);
  }
  return png;
}

/**
 * The signer's initials for their Initials fields: drawn or typed once, shown in every one of them. Required
 * when they have such fields; refused when they have none (it would be dropped). The fields carry the typed
 * text, or the initials of their name under a drawn picture.
 */
function initialsFor(
  input: ActInput,
  fields: readonly FieldsTable[],
  name: string,
): { image: Uint8Array | undefined; value: string; fields: FieldsTable[] } | undefined {
  const own = fields.filter((f) => f.field_type === FIELD_TYPES.INITIAL);
  const given = input.initials;
  if (own.length === 0) {
    if (given !== undefined) {
      throw new MoharError('validation_failed', 'you have no Initials fields: send no initials', {
        errors: [{ path: '/initials', message: 'this signer has no Initials field' }],
      });
    }
    return undefined;
  }
  const typed = given?.kind === 'typed' ? given.text?.trim() : undefined;
  if (!given || (given.kind === 'typed' ? !typed : given.image_png === undefined)) {
    throw new MoharError(
      'validation_failed',
      `draw or type your initials: you have ${own.length} Initials field${own.length === 1 ? '' : 's'}`,
      { errors: [{ path: '/initials', message: 'required: draw (image_png) or type (text) your initials' }] },
    );
  }
  return { image: pictureOf('initials', given), value: typed ?? initialsOf(name), fields: own };
}

export async function signElectronically(
  ctx: Context,
  session: ResolvedSession,
  input: ActInput,
  client: ClientInfo,
): Promise<DecisionResult> {
  if (input.consent !== true) throw new MoharError('consent_required', 'accept the consent statement to sign');
  const first = await loadActors(ctx.db, session.envelopeId, session.recipientId);
  checkActionForRole('sign', first.recipient.role);
  if (first.recipient.signature_method === 'dsc') {
    throw new MoharError(
      'dsc_signing_required',
      'a USB DSC signer signs with the token on their own machine: GET documents/{id}/prepared, sign it, then PUT documents/{id}/signed',
    );
  }
  if (first.recipient.signature_method !== 'electronic') {
    throw new MoharError('aadhaar_not_configured', 'Aadhaar eSign is not configured on this server');
  }
  if (!input.signature || (input.signature.kind === 'typed' && !input.signature.text?.trim())) {
    throw new MoharError('validation_failed', 'draw or type your signature', {
      errors: [{ path: '/signature', message: 'required to sign' }],
    });
  }
  const image = pictureOf('signature', input.signature);
  const fields = await ctx.db
    .selectFrom('fields')
    .selectAll()
    .where('envelope_id', '=', session.envelopeId)
    .where('recipient_id', '=', session.recipientId)
    .orderBy('position')
    .execute();
  const initials = initialsFor(input, fields, first.recipient.name);
  const now = ctx.now();
  const today = iso(now).slice(0, 10);
  const values = fillValues(fields, first.recipient, input.fields ?? {}, today);
  for (const f of initials?.fields ?? []) {
    values.stored.set(f.id, initials!.value);
    // Typed initials without a picture are shown as their text, like a typed signature without one.
    if (!initials!.image) values.pdf[pdfFieldName(f)] = initials!.value;
  }
  const { name, email } = first.recipient;
  const signature = input.signature;
  const finished = await commitActRevisions(
    ctx,
    session.envelopeId,
    session.recipientId,
    {
      act: 'electronic signature',
      revisionAct: 'signed',
      fields,
      values,
      signingTime: now,
      name,
      reason: `Signed electronically by ${name} <${email}>`,
      appearance: image ? { image, lines: [name, today] } : { lines: [signature.text ?? name, `${name}, ${today}`] },
      ...(initials?.image
        ? { imageFields: { image: initials.image, value: initials.value, fields: initials.fields.map(pdfFieldName) } }
        : {}),
    },
    (level) => ({
      status: 'signed',
      method: 'electronic',
      client,
      details: (at) => ({
        consent_at: at,
        signature: signature.kind,
        ...(signature.kind === 'typed' ? { signature_text: signature.text } : {}),
        ...(initials
          ? {
              initials: input.initials!.kind,
              ...(input.initials!.kind === 'typed' ? { initials_text: initials.value } : {}),
            }
          : {}),
        pades_level: level,
      }),
    }),
  );
  return { status: 'signed', envelopeFinished: finished };
}
