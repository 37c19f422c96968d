/**
 * The one rule for whether a recipient may sign by Aadhaar eSign: live data only when this server is an ASP
 * (MOHAR_ESIGN_* configured); test data (a qsk_test_ key's) through the built-in ESP simulator unless
 * MOHAR_ESIGN_SANDBOX=0 (esign-for.ts). Checked where a recipient enters a draft (create, add, patch, the
 * legacy create, templates and bulk through create) and again at send (the settings may have changed since).
 */
import { MoharError } from '../../../common/errors.js';
import type { Config } from '../../config.js';
import { aadhaarAvailableFor } from './esign-for.js';

export interface MethodOf {
  readonly name: string;
  readonly signature_method: string;
}

/** Throws 422 aadhaar_not_configured for the first Aadhaar recipient when eSign is not available for data of `mode`. */
export function assertAadhaarAvailable(
  config: Pick<Config, 'esign' | 'esignSandbox'>,
  recipients: readonly MethodOf[],
  pathOf: (index: number) => string = () => '/signature_method',
  mode: string | undefined = 'live',
): void {
  if (aadhaarAvailableFor(config, mode)) return;
  const index = recipients.findIndex((r) => r.signature_method === 'aadhaar');
  if (index < 0) return;
  const why =
    mode === 'test'
      ? 'the built-in ESP simulator for test data is turned off on this server (MOHAR_ESIGN_SANDBOX=0)'
      : 'no eSign service provider is configured on this server for live data (MOHAR_ESIGN_*; test keys can use the built-in simulator)';
  throw new MoharError(
    'aadhaar_not_configured',
    `recipient ${recipients[index]!.name} signs by Aadhaar eSign, but ${why}`,
    {
      errors: [{ path: pathOf(index), message: 'Aadhaar eSign is not available on this server' }],
    },
  );
}
