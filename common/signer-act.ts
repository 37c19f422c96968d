/**
 * The signer's act as the signer API receives it (POST {api_base}/signing/{token}): the type the signing page
 * sends (renderer/src/api.ts) and the workflow's act operations take (server/domain/workflow/decide-act.ts,
 * electronic-act.ts). The route's TypeBox schema (server/http/schemas/signing.ts, ActBody) validates it; the
 * domain cannot import that schema (lint: domain knows nothing of http/), so test/renderer/wire-types.test.ts
 * holds the schema's static type equal to this one, and `npm run typecheck` fails when either moves alone.
 */

export interface SignerActBody {
  action: 'sign' | 'review' | 'approve' | 'decline';
  /** Values by field_id, for sign and approve: the recipient's own fields that they fill. */
  fields?: Record<string, string | boolean>;
  signature?: { kind: 'drawn' | 'typed' | 'uploaded'; image_png?: string; text?: string };
  initials?: { kind: 'drawn' | 'typed'; image_png?: string; text?: string };
  consent?: boolean;
  decline_reason?: string;
}

/** What signing, approving and reviewing read of the body: the route has chosen the operation by `action`. */
export type ActInput = Omit<SignerActBody, 'action' | 'decline_reason'>;
