/**
 * The electronic signature act: the signer's values and their drawn or typed signature go into ONE
 * incremental revision together with a PAdES signature on their Signature field, made with the
 * installation's seal key (act-revision.ts, shared with an approval that writes values).
 */
import { MoharError } from '../../../common/errors.js';
import { iso, type Context } from '../context.js';
import { loadActors, recordAct, type ClientInfo } from './act-context.js';
import { commitActRevisions } from './act-revision.js';
import { checkActionForRole, type DecisionResult } from './decide-act.js';
import { fillValues } from './field-values.js';
import type { ResolvedSession } from './sessions.js';

export interface SignInput {
  consent?: boolean;
  fields?: Record<string, string | boolean>;
  signature?: { kind: 'drawn' | 'typed' | 'uploaded'; image_png?: string; text?: string };
}

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
  const today = iso(now).slice(0, 10);
  const values = fillValues(fields, first.recipient, input.fields ?? {}, today);
  const { name, email } = first.recipient;
  const signature = input.signature;
  const finished = await commitActRevisions(ctx, session.envelopeId, session.recipientId, {
    act: 'electronic signature',
    revisionAct: 'signed',
    fields,
    values,
    signingTime: now,
    name,
    reason: `Signed electronically by ${name} <${email}>`,
    appearance: image ? { image, lines: [name, today] } : { lines: [signature.text ?? name, `${name}, ${today}`] },
  }, (trx, { envelope, recipient, recipients }, at, level) => recordAct(ctx, trx, envelope, recipients, recipient, 'signed', { method: 'electronic', consent_at: at, ip: client.ip, user_agent: client.userAgent, signature: signature.kind, ...(signature.kind === 'typed' ? { signature_text: signature.text } : {}), pades_level: level }, at));
  return { status: 'signed', envelopeFinished: finished };
}
