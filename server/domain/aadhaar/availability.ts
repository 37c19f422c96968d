/**
 * The one rule for whether a recipient may sign by Aadhaar eSign: only when this server is an ASP
 * (MOHAR_ESIGN_* configured). Checked where a recipient enters a draft (create, add, patch, the legacy
 * create, templates and bulk through create) and again at send (the settings may have changed since).
 */
import { MoharError } from '../../../common/errors.js';
import type { Config } from '../../config.js';

export interface MethodOf {
  readonly name: string;
  readonly signature_method: string;
}

/** Throws 422 aadhaar_not_configured for the first Aadhaar recipient when eSign is not configured. */
export function assertAadhaarAvailable(config: Pick<Config, 'esign'>, recipients: readonly MethodOf[], pathOf: (index: number) => string = () => '/signature_method'): void {
  if (config.esign !== undefined) return;
  const index = recipients.findIndex((r) => r.signature_method === 'aadhaar');
  if (index < 0) return;
  throw new MoharError('aadhaar_not_configured', `recipient ${recipients[index]!.name} signs by Aadhaar eSign, but no eSign service provider is configured on this server (MOHAR_ESIGN_*)`, {
    errors: [{ path: pathOf(index), message: 'Aadhaar eSign is not available on this server' }],
  });
}
