/**
 * The interface's DSC limits: "a DSC envelope supports one PDF and one signing recipient".
 * Mohar reads that as: an envelope with a DSC signer holds exactly one PDF, and at most one of its
 * signers signs by DSC (other signers, reviewers, approvers and cc may take part; see
 * docs/decisions.md). Checked whenever documents or recipients change.
 */
import { MoharError } from '../../../common/errors.js';

export interface DscCheckInput {
  readonly recipients: readonly { role: string; signature_method: string }[];
  readonly documentCount: number;
}

export function isDscSigner(r: { role: string; signature_method: string }): boolean {
  return r.role === 'signer' && r.signature_method === 'dsc';
}

export function checkDscLimits(input: DscCheckInput): void {
  const dscSigners = input.recipients.filter(isDscSigner).length;
  if (dscSigners > 1) {
    throw new MoharError(
      'dsc_single_signer',
      `an envelope can have one USB DSC signer; this one would have ${dscSigners}`,
    );
  }
  if (dscSigners === 1 && input.documentCount > 1) {
    throw new MoharError(
      'dsc_single_document',
      `an envelope with a USB DSC signer holds exactly one PDF; this one would have ${input.documentCount}`,
    );
  }
}
