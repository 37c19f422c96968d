/**
 * "Sign with a test certificate" on a mock request's signing page: the server makes an ephemeral
 * self-signed certificate for the signer and signs the prepared bytes PAdES B-B with a visible TEST
 * appearance, then hands the result to the same strict checks a USB token's upload goes through
 * (dsc-act.ts). So the sandbox exercises the real DSC path, events and completion included.
 */
import { MoharError } from '../../../common/errors.js';
import { signPades } from '../../../pdf/index.js';
import type { Context } from '../context.js';
import { iso } from '../time.js';
import type { ClientInfo } from '../workflow/act-context.js';
import type { DecisionResult } from '../workflow/decide-act.js';
import { acceptTokenSignature, prepareForToken } from '../workflow/dsc-act.js';
import type { ResolvedSession } from '../workflow/sessions.js';
import { makeTestCertificate, TEST_CERTIFICATE_NOTICE } from './test-certificate.js';

export async function signWithTestCertificate(
  ctx: Context,
  session: ResolvedSession,
  client: ClientInfo,
): Promise<DecisionResult> {
  const request = await ctx.db
    .selectFrom('sandbox_requests')
    .selectAll()
    .where('envelope_id', '=', session.envelopeId)
    .executeTakeFirst();
  if (!request || request.recipient_id !== session.recipientId) {
    throw new MoharError(
      'mock_signing_not_enabled',
      'this link is not a sandbox mock DSC request; sign with your USB token in Mohar Desktop',
    );
  }
  const recipient = await ctx.db
    .selectFrom('recipients')
    .select(['name', 'email'])
    .where('id', '=', session.recipientId)
    .executeTakeFirstOrThrow();
  const now = ctx.now();
  const certificate = await makeTestCertificate(recipient, now);
  const prepared = await prepareForToken(ctx, session, request.document_id);
  const signed = await signPades(prepared.bytes, certificate.signer, {
    level: 'B-B',
    field: { name: prepared.fieldName },
    signingTime: now,
    name: `${recipient.name} (TEST)`,
    reason: 'Mohar sandbox: mock USB DSC signature',
    appearance: {
      lines: [
        'TEST SIGNATURE',
        `Signed by ${recipient.name}`,
        TEST_CERTIFICATE_NOTICE,
        `Date: ${iso(now).slice(0, 19).replace('T', ' ')} UTC`,
      ],
      border: true,
    },
  });
  const result = await acceptTokenSignature(ctx, session, request.document_id, signed.bytes, client);
  await ctx.db
    .updateTable('sandbox_requests')
    .set({ certificate: JSON.stringify(certificate.summary), signed_at: iso(now) })
    .where('public_id', '=', request.public_id)
    .execute();
  return result;
}
