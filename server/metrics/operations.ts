/**
 * Which routes are the operations measured end to end (mohar_operation_duration_seconds), by their
 * OpenAPI operationId or, for the hidden public verifier, by method and route pattern. One table, so a
 * new signing or upload route is added here rather than timed in its handler.
 */
import type { Operation } from './registry.js';

const BY_OPERATION_ID: Readonly<Record<string, Operation>> = {
  // The signer's act (electronic signature or decline) and the USB DSC signed-PDF upload.
  actAsSigner: 'signing',
  uploadTokenSignature: 'signing',
  // A PDF coming in: an envelope's document, a draft's attached document, the legacy create.
  uploadDocument: 'pdf_intake',
  attachDocument: 'pdf_intake',
  createDocumentWithRecipients: 'pdf_intake',
  // The envelope API's signature report of a stored document.
  listDocumentSignatures: 'verification',
};

const BY_ROUTE: Readonly<Record<string, Operation>> = {
  'POST /verify': 'verification',
};

export function operationOf(method: string, route: string, operationId: string | undefined): Operation | undefined {
  return (operationId === undefined ? undefined : BY_OPERATION_ID[operationId]) ?? BY_ROUTE[`${method} ${route}`];
}
