/**
 * An integrator's whole envelope flow, written only against the types openapi-typescript generates from the
 * served v1 document (./v1.generated.ts, made by openapi-client.test.ts; never committed) and run with
 * openapi-fetch. It must compile under strict settings without casts: the document is what a client can trust.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from './v1.generated.js';

export interface FlowResult {
  readonly envelopeId: string;
  readonly signedPdf: Uint8Array;
}

function fail(step: string, error: unknown): never {
  throw new Error(`${step} failed: ${JSON.stringify(error)}`);
}

/** Creates, attaches (multipart), places a field, sends, signs through a signing session, downloads the PDF. */
export async function runEnvelopeFlow(
  client: Client<paths>,
  pdf: Uint8Array<ArrayBuffer>,
  afterSigning: () => Promise<void>,
): Promise<FlowResult> {
  const created = await client.POST('/envelopes', {
    body: { title: 'Typed client NDA', recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }] },
  });
  if (!created.data) fail('create', created.error);
  const envelopeId = created.data.id;
  const signer = created.data.recipients[0];
  if (!signer) fail('create', 'no recipient');

  // The body is typed by the document (multipart: { file: Blob }); openapi-fetch sends what bodySerializer makes.
  const file = new Blob([pdf], { type: 'application/pdf' });
  const form = new FormData();
  form.append('file', file, 'nda.pdf');
  const attached = await client.POST('/envelopes/{id}/documents', {
    params: { path: { id: envelopeId } },
    body: { file },
    bodySerializer: () => form,
  });
  if (!attached.data) fail('attach', attached.error);
  const documentId = attached.data.document_id;

  const placed = await client.PUT('/envelopes/{id}/documents/{document_id}/fields', {
    params: { path: { id: envelopeId, document_id: documentId } },
    body: {
      fields: [
        { recipient_id: signer.recipient_id, field_type: 1, page_number: 1, x: 72, y: 600, width: 180, height: 50 },
      ],
    },
  });
  if (!placed.data) fail('fields', placed.error);

  const sent = await client.POST('/envelopes/{id}/send', { params: { path: { id: envelopeId } } });
  if (!sent.data) fail('send', sent.error);

  const session = await client.POST('/envelopes/{id}/signing-sessions', {
    params: { path: { id: envelopeId } },
    body: { recipient_id: signer.recipient_id, mode: 'redirect' },
  });
  if (!session.data) fail('signing session', session.error);
  const token = session.data.signing_url.split('/sign/')[1];
  if (!token) fail('signing session', session.data.signing_url);

  const signed = await client.POST('/signing/{token}', {
    params: { path: { token } },
    body: { action: 'sign', consent: true, signature: { kind: 'typed', text: signer.name } },
  });
  if (!signed.data) fail('sign', signed.error);
  await afterSigning();

  const download = await client.GET('/envelopes/{id}/documents/{document_id}/download', {
    params: { path: { id: envelopeId, document_id: documentId } },
    parseAs: 'arrayBuffer',
  });
  if (!download.data) fail('download', download.error);
  return { envelopeId, signedPdf: new Uint8Array(download.data) };
}
