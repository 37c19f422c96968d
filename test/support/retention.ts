/** Envelopes for the retention suites: completed through the real API (one electronic signer). */
import assert from 'node:assert/strict';
import { makeDraft, sendDraft, type Draft } from './envelopes.js';
import { makePdf } from './pdf-fixtures.js';
import { API, type TestServer } from './server.js';

export async function completedEnvelope(server: TestServer, key: string, pdf = makePdf({ pages: 1 })): Promise<Draft> {
  const draft = await makeDraft(server, key, {
    recipients: [{ name: 'Meera', email: `meera-${Math.random().toString(36).slice(2, 8)}@example.com` }],
    pdf,
  });
  await sendDraft(server, key, draft);
  const session = await server.request('POST', `${API}/envelopes/${draft.id}/signing-sessions`, {
    key,
    json: { recipient_id: draft.recipientIds[0], mode: 'redirect' },
  });
  assert.equal(session.statusCode, 201, session.body);
  const token = session.json().signing_url.split('/sign/')[1] as string;
  const signed = await server.request('POST', `${API}/signing/${token}`, {
    json: { action: 'sign', consent: true, signature: { kind: 'typed', text: 'Meera' } },
  });
  assert.equal(signed.statusCode, 200, signed.body);
  await server.runJobs();
  const envelope = await server.request('GET', `${API}/envelopes/${draft.id}`, { key });
  assert.equal(envelope.json().status, 'completed');
  return draft;
}

/** Moves an envelope's finish `days` into the past, as if it had completed then (the purge job counts from it). */
export async function finishedDaysAgo(server: TestServer, envelopeId: string, days: number): Promise<void> {
  const at = new Date(server.clock.now().getTime() - days * 86_400_000).toISOString();
  await server.ctx.db
    .updateTable('envelopes')
    .set({ completed_at: at, updated_at: at })
    .where('id', '=', envelopeId)
    .execute();
}
