/**
 * The three PDFs the public verifier is tried with (issue 28, point 8): a document this server completed (an envelope
 * signed electronically through the API), a tampered copy of it (one appended revision drawing new text on page 1,
 * as someone editing the signed file would), and a PDF signed elsewhere (signPades with a test PKI's key, outside
 * the trust anchors unless a test configures its root).
 */
import assert from 'node:assert/strict';
import { PdfArray, PdfRef } from '../../pdf/objects.js';
import { PdfReader } from '../../pdf/document.js';
import { getPages } from '../../pdf/pages.js';
import { IncrementalUpdate } from '../../pdf/write/incremental.js';
import { dict, makeStream } from '../../pdf/write/serialize.js';
import { signPades } from '../../pdf/sign/pades.js';
import { makeTestKey, type TestKey } from './earlier-signatures.js';
import { makeDraft, sendDraft } from './envelopes.js';
import { makePdf } from './pdf-fixtures.js';
import { API, type TestServer } from './server.js';

export interface CompletedDocument {
  readonly envelopeId: string;
  readonly pdf: Buffer;
}

/** An envelope with one signer who signs electronically (typed), completed and sealed; its final PDF. */
export async function completedDocument(server: TestServer, key: string): Promise<CompletedDocument> {
  const draft = await makeDraft(server, key, { recipients: [{ name: 'Asha Rao', email: 'asha@example.com' }] });
  await sendDraft(server, key, draft);
  const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
    key,
    json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
  });
  assert.equal(session.statusCode, 201, session.body);
  const token = String(session.json().signing_url).split('/sign/')[1]!;
  const signed = await server.request('POST', `${API}/signing/${token}`, {
    json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Asha Rao' } },
  });
  assert.equal(signed.statusCode, 200, signed.body);
  assert.equal(signed.json().envelope_status, 'completed');
  await server.runJobs();
  const download = await server.request('GET', `${API}/envelopes/${draft.id}/documents/${draft.documentId}/download`, {
    key,
  });
  assert.equal(download.statusCode, 200, download.body);
  return { envelopeId: draft.id, pdf: download.rawPayload };
}

/** One appended revision that adds a content stream to page 1 drawing `text`: a page change no signature allows. */
export function tamperPageContent(pdf: Buffer, text = 'PAID IN FULL'): Buffer {
  const reader = PdfReader.open(pdf);
  const page = getPages(reader)[0];
  if (!page?.ref) throw new Error('verify-fixtures: page 1 has no object of its own');
  const update = new IncrementalUpdate(reader);
  const drawing = update.add(makeStream(dict({}), Buffer.from(`BT /F1 28 Tf 60 700 Td (${text}) Tj ET`, 'latin1')));
  const pageDict = update.editDict(page.ref);
  const contents = pageDict.get('Contents');
  const existing = contents instanceof PdfArray ? contents.items : contents instanceof PdfRef ? [contents] : [];
  pageDict.set('Contents', new PdfArray([...existing, drawing]));
  return Buffer.from(update.write().bytes);
}

/** A two-page PDF signed (PAdES B-B) by `commonName` of a fresh test PKI; the key comes back for its root. */
export async function signedElsewhere(commonName = 'Meera Iyer'): Promise<{ pdf: Buffer; key: TestKey }> {
  const key = await makeTestKey(commonName);
  const signed = await signPades(makePdf({ pages: 2 }), key.signer, {
    level: 'B-B',
    field: { invisible: true, name: 'Signature1' },
    signingTime: new Date(),
  });
  return { pdf: Buffer.from(signed.bytes), key };
}
